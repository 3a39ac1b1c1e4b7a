import type { LoaderFunctionArgs } from "@remix-run/node";
import { challenge } from "~/content/site";
import { FEED_TYPE, updatesFeedXml } from "~/updates/feed.server";
import { startOfDay } from "~/updates/update-view.server";
import { publishedUpdates } from "~/updates/updates.server";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";

export function loader({ request }: LoaderFunctionArgs) {
  // With no update yet, the feed is as old as the challenge.
  const body = updatesFeedXml(publishedUpdates(), startOfDay(challenge.startDate));
  return new Response(body, {
    headers: {
      ...resourceHeaders(isHttps(request)),
      "Content-Type": `${FEED_TYPE}; charset=utf-8`,
      "Cache-Control": "public, max-age=3600",
    },
  });
}
