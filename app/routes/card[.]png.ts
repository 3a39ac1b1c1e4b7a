import type { LoaderFunctionArgs } from "@remix-run/node";
import { SOCIAL_CARD } from "~/sharing/social-card-text.server";
import { resourceResponse } from "~/utils/resource-response.server";
import { socialCardFor } from "~/sharing/social-card.server";
import { matchesEtag } from "~/utils/http-fields.server";

// The social card (og:image, see root's meta): today's picture, whatever the query (the date in og:image's query only
// gives each day its own URL in the networks' caches).
export async function loader({ request }: LoaderFunctionArgs) {
  const now = new Date();
  const card = await socialCardFor(now);
  const answer = {
    type: SOCIAL_CARD.type,
    // Fresh until the Brussels date changes (networks and browsers fetch the new day's card after that), then
    // revalidated by its ETag.
    cacheControl: `public, max-age=${Math.max(0, Math.floor((card.until - now.getTime()) / 1000))}`,
    // The one thing on the site meant to be shown elsewhere: a client that loads it from the network's page must
    // not be refused by the same-origin rule the other resources keep.
    headers: { "Cross-Origin-Resource-Policy": "cross-origin", ETag: card.etag },
  };
  if (matchesEtag(request.headers.get("If-None-Match"), card.etag)) {
    return resourceResponse(request, null, { ...answer, status: 304 });
  }
  return resourceResponse(request, card.png, {
    ...answer,
    headers: { ...answer.headers, "Content-Length": String(card.png.length) },
  });
}
