import type { LoaderFunctionArgs } from "@remix-run/node";
import { owner } from "~/content/site";
import { env } from "~/utils/env.server";
import { resourceResponse } from "~/utils/resource-response.server";

// A route rather than a static file: ALLOW_INDEXING=false (a staging copy, say) must turn crawlers away.
export function loader({ request }: LoaderFunctionArgs) {
  // The sitemap's address is absolute (robots.txt requires it), on the owner's site URL; none while indexing is off.
  const body = env.ALLOW_INDEXING
    ? `User-agent: *\nAllow: /\n\nSitemap: ${new URL("/sitemap.xml", owner.siteUrl).toString()}\n`
    : "User-agent: *\nDisallow: /\n";
  return resourceResponse(request, body, { type: "text/plain; charset=utf-8", cacheControl: "public, max-age=3600" });
}
