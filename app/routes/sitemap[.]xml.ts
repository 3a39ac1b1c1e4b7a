import type { LoaderFunctionArgs } from "@remix-run/node";
import { challenge, owner } from "~/content/site";
import { env } from "~/utils/env.server";
import { localDateAt } from "~/utils/days.server";
import { sitemapXml } from "~/sharing/sitemap.server";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";
import { updatesSitemapEntries } from "~/updates/updates-sitemap.server";

// The home page on the owner's address, then the updates (the list and each published one). With ALLOW_INDEXING=false
// there is no sitemap at all (404): robots.txt then disallows everything and names none, so only a guess leads here,
// and "nothing to index" is the truthful answer; an empty <urlset> would read as a broken sitemap in a search console.
export function loader({ request }: LoaderFunctionArgs) {
  const headers = resourceHeaders(isHttps(request));
  if (!env.ALLOW_INDEXING) {
    return new Response("Not Found\n", {
      status: 404,
      headers: { ...headers, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" },
    });
  }
  // The page changes every Brussels day (its day counter): that is its last modification.
  const lastModified = localDateAt(new Date(), challenge.timeZone).toString();
  const entries = [{ url: new URL("/", owner.siteUrl).toString(), lastModified }, ...updatesSitemapEntries()];
  return new Response(sitemapXml(entries), {
    headers: { ...headers, "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
