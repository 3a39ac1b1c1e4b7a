import type { EntryContext } from "@remix-run/node";
import type { LatestPost } from "~/latest-post/latest-post.server";
import { latestPostSnapshot } from "~/latest-post/latest-post.server";
import type { ChallengeDays } from "~/utils/days.server";
import { challengeToday } from "~/utils/today.server";

/**
 * What the anonymous home page depends on besides the build: today's date in the challenge's time zone (the day
 * counters and the footer year) and the latest post. Two requests with the same key get the same HTML, so
 * server/index.mjs may answer them from one rendered copy (docs/decisions/006-page-cache-and-csp.md).
 */
function keyOf(today: string, post: LatestPost | null): string {
  // The link and the source label are on the page too; the text alone keeps the key of an older `{ text }` answer.
  const shown = post && (post.url || post.source) ? [post.text, post.url ?? null, post.source ?? null] : post?.text;
  // JSON keeps "no post" and a post whose text is empty apart, and no text can forge the separator.
  return JSON.stringify([today, shown ?? null]);
}

/**
 * The key a visitor's request to "/" would be rendered with now, from the cheap, synchronous state (no call). Null
 * means "unknown without a call" (the latest post is not settled yet): the page must be rendered the normal way.
 */
export function homePageCacheKey(
  now: Date,
  snapshot: { post: LatestPost | null; settled: boolean } = latestPostSnapshot(),
): string | null {
  if (!snapshot.settled) return null;
  return keyOf(challengeToday(now).days.today, snapshot.post);
}

/**
 * The header through which a render of "/" for the page cache says which key its page belongs to. Only such renders
 * carry it, and the cache keeps it out of what it sends.
 */
export const RENDERED_KEY_HEADER = "x-home-page-key";

/** The facts of the home page's loader (routes/_index) that the key is made of. */
interface HomePageFacts {
  days: Pick<ChallengeDays, "today">;
  /** The card's post and its words, or null when the page has no card. */
  latestPost: { post: LatestPost } | null;
}

/**
 * The key of the page a render produced, from what the home page's loader returned (the day and the latest post it
 * rendered), URI-encoded for a header; null when the render was not the home page's.
 */
export function renderedHomePageKey(context: EntryContext): string | null {
  const facts = context.staticHandlerContext.loaderData["routes/_index"] as HomePageFacts | undefined;
  if (!facts?.days) return null;
  return encodeURIComponent(keyOf(facts.days.today, facts.latestPost?.post ?? null));
}
