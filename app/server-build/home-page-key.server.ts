import { challenge } from "~/content/site";
import type { LatestPost } from "~/latest-post/latest-post.server";
import { latestPostSnapshot } from "~/latest-post/latest-post.server";
import { localDateAt, nextMidnight } from "~/utils/days.server";

/**
 * What the anonymous home page depends on besides the build: today's date in the challenge's time zone (the day
 * counters and the footer year) and the latest post. Two requests with the same key get the same HTML, so
 * server/index.mjs may answer them from one rendered copy (docs/decisions/006-page-cache-and-csp.md).
 *
 * Null means "unknown without a call" (the latest post is not settled yet): the page must be rendered the normal way.
 */
// The key is asked for on every request to "/": the date is worked out once and kept until the next midnight there.
let today: { date: string; from: number; until: number } | null = null;

function todayAt(now: Date): string {
  const time = now.getTime();
  if (!today || time < today.from || time >= today.until) {
    today = {
      date: localDateAt(now, challenge.timeZone).toString(),
      from: time,
      until: nextMidnight(now, challenge.timeZone).getTime(),
    };
  }
  return today.date;
}

export function homePageCacheKey(
  now: Date,
  snapshot: { post: LatestPost | null; settled: boolean } = latestPostSnapshot(),
): string | null {
  if (!snapshot.settled) return null;
  // JSON keeps "no post" and a post whose text is empty apart, and no text can forge the separator.
  const post = snapshot.post;
  // The link and the source label are on the page too; the text alone keeps the key of an older `{ text }` answer.
  const shown = post && (post.url || post.source) ? [post.text, post.url ?? null, post.source ?? null] : post?.text;
  return JSON.stringify([todayAt(now), shown ?? null]);
}
