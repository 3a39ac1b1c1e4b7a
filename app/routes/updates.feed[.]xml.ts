import type { LoaderFunctionArgs } from "@remix-run/node";
import { currentFeed, notModified } from "~/updates/feed/cache.server";
import { FEED_TYPE } from "~/updates/feed/atom.server";
import { resourceResponse } from "~/utils/resource-response.server";

// Readers poll the feed: it is built once for what it shows (app/updates/feed/cache.server.ts), and a reader whose
// copy is current gets a 304 without a body.
export function loader({ request }: LoaderFunctionArgs) {
  const feed = currentFeed();
  const answer = {
    type: `${FEED_TYPE}; charset=utf-8`,
    cacheControl: "public, max-age=3600",
    headers: { ETag: feed.etag, "Last-Modified": feed.lastModified },
  };
  if (notModified(request.headers, feed)) return resourceResponse(request, null, { ...answer, status: 304 });
  return resourceResponse(request, feed.body, answer);
}
