// What the updates routes share on the server: the frame's data, the answer for an unknown update, the caching.
import type { HeadersFunction } from "@remix-run/node";
import { challenge, owner, updatesCopy } from "~/content/site";
import type { FrameProps } from "~/updates/frame-props";
import { localDateAt } from "~/utils/days.server";
import { logField, warnThrottled } from "~/utils/log.server";

/** The frame's data: the owner's name, the year in Brussels for the copyright line, and the pages' words. */
export const frameProps = (now: Date): FrameProps => ({
  ownerName: owner.name,
  year: localDateAt(now, challenge.timeZone).year(),
  copy: updatesCopy,
});

/** The site's 404 for a name that is no published update, logged as any 404 is (app/routes/$.tsx). */
export function updateNotFound(request: Request): never {
  warnThrottled(`404 Not Found: ${logField(new URL(request.url).pathname)}`);
  throw new Response("Not Found", { status: 404 });
}

/**
 * The pages change only with a deploy (and the copyright's year): a browser may keep one for five minutes. Private:
 * each render carries its own CSP nonce, which no shared cache may hand to others. A response that clears a flashed
 * toast, and the 404 page, are not kept at all.
 */
export const updatesPageHeaders: HeadersFunction = ({ parentHeaders, errorHeaders }) => ({
  "Cache-Control": errorHeaders || parentHeaders.has("Set-Cookie") ? "no-cache" : "private, max-age=300",
});
