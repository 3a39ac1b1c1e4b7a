import type { LatestPost } from "~/latest-post/latest-post.server";
import { latestPostSnapshot } from "~/latest-post/latest-post.server";
import { challengeToday } from "~/utils/today.server";

/**
 * What the anonymous home page depends on besides the build: today's date in the challenge's time zone (the day
 * counters and the footer year) and the latest post. Two requests with the same key get the same HTML, so
 * server/index.mjs may answer them from one rendered copy (docs/decisions/006-page-cache-and-csp.md).
 *
 * Null means "unknown without a call" (the latest post is not settled yet): the page must be rendered the normal way.
 */
export function homePageCacheKey(
  now: Date,
  snapshot: { post: LatestPost | null; settled: boolean } = latestPostSnapshot(),
): string | null {
  if (!snapshot.settled) return null;
  // JSON keeps "no post" and a post whose text is empty apart, and no text can forge the separator.
  return JSON.stringify([challengeToday(now).days.today, snapshot.post ? snapshot.post.text : null]);
}
