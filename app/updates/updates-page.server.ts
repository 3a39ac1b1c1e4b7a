// What the updates routes share on the server: the footer's data, the answer for an unknown update, the caching.
import type { FooterProps } from "~/components/footer";
import { challenge, siteContent } from "~/content/site";
import { challengeDays } from "~/utils/days.server";
import { logField, warnThrottled } from "~/utils/log.server";

export function footerProps(now: Date): FooterProps {
  const days = challengeDays(now, challenge);
  return {
    content: { owner: siteContent.owner, links: siteContent.links, footerCopy: siteContent.footerCopy },
    daysIn: days.daysIn,
    progressPercent: days.progressPercent,
    lengthInDays: days.lengthInDays,
    year: Number(days.today.slice(0, 4)),
  };
}

/** The site's 404 for a name that is no published update, logged as any 404 is (app/routes/$.tsx). */
export function updateNotFound(request: Request): never {
  warnThrottled(`404 Not Found: ${logField(new URL(request.url).pathname)}`);
  throw new Response("Not Found", { status: 404 });
}

/**
 * The pages change only with a deploy and once a day (the footer's day): a browser may keep one for five minutes.
 * Private: each render carries its own CSP nonce, which no shared cache may hand to others. A response that clears a
 * flashed toast is not kept at all.
 */
export const pageCacheControl = (parentHeaders: Headers): string =>
  parentHeaders.has("Set-Cookie") ? "no-cache" : "private, max-age=300";
