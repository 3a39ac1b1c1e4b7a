import type { LoaderFunctionArgs } from "@remix-run/node";
import { env } from "~/env.server";
import { isHttps, resourceHeaders } from "~/security-headers.server";

// A route rather than a static file: ALLOW_INDEXING=false (a staging copy, say) must turn crawlers away.
export function loader({ request }: LoaderFunctionArgs) {
  const body = env.ALLOW_INDEXING ? "User-agent: *\nAllow: /\n" : "User-agent: *\nDisallow: /\n";
  return new Response(body, {
    headers: {
      ...resourceHeaders(isHttps(request)),
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}
