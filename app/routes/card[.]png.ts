import type { LoaderFunctionArgs } from "@remix-run/node";
import { SOCIAL_CARD } from "~/sharing/social-card-text.server";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";
import { socialCardFor } from "~/sharing/social-card.server";
import { matchesEtag } from "~/utils/http-fields.server";

// The social card (og:image, see root's meta): today's picture, whatever the query (the date in og:image's query only
// gives each day its own URL in the networks' caches).
export async function loader({ request }: LoaderFunctionArgs) {
  const now = new Date();
  const card = await socialCardFor(now);
  const headers = {
    ...resourceHeaders(isHttps(request)),
    // The one thing on the site meant to be shown elsewhere: a client that loads it from the network's page must
    // not be refused by the same-origin rule the other resources keep.
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Content-Type": SOCIAL_CARD.type,
    // Fresh until the Brussels date changes (networks and browsers fetch the new day's card after that), then
    // revalidated by its ETag.
    "Cache-Control": `public, max-age=${Math.max(0, Math.floor((card.until - now.getTime()) / 1000))}`,
    ETag: card.etag,
  };
  if (matchesEtag(request.headers.get("If-None-Match"), card.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(card.png, { headers: { ...headers, "Content-Length": String(card.png.length) } });
}
