import type { LoaderFunctionArgs } from "@remix-run/node";
import { owner } from "~/content/site";
import { env } from "~/utils/env.server";
import { challengeToday } from "~/utils/today.server";
import { sitemapXml } from "~/sharing/sitemap.server";
import { resourceResponse } from "~/utils/resource-response.server";
import { updatesSitemapEntries } from "~/sharing/updates-sitemap.server";

// The home page on the owner's address, then the updates (the list and each published one). With ALLOW_INDEXING=false
// there is no sitemap at all (404): robots.txt then disallows everything and names none, so only a guess leads here,
// and "nothing to index" is the truthful answer; an empty <urlset> would read as a broken sitemap in a search console.
export function loader({ request }: LoaderFunctionArgs) {
  if (!env.ALLOW_INDEXING) {
    return resourceResponse(request, "Not Found\n", {
      type: "text/plain; charset=utf-8",
      cacheControl: "no-cache",
      status: 404,
    });
  }
  // The page changes every Brussels day (its day counter): that is its last modification.
  const lastModified = challengeToday().days.today;
  const entries = [{ url: new URL("/", owner.siteUrl).toString(), lastModified }, ...updatesSitemapEntries()];
  return resourceResponse(request, sitemapXml(entries), {
    type: "application/xml; charset=utf-8",
    cacheControl: "public, max-age=3600",
  });
}
