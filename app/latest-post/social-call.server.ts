import { type SocialSources, fetchSocialPost } from "../../supabase/functions/_shared/latest-post/fetch-latest.ts";
import type { LatestPostBody } from "../../supabase/functions/_shared/latest-post/post.ts";
import { sameOriginFetch } from "~/latest-post/same-origin-fetch.server";
import { RetryLater } from "~/latest-post/swr-cache.server";
import { LOG_PREFIX, MAX_CAUSE_CHARS, MAX_TEXT_CHARS, type Log } from "~/latest-post/limits.server";
import { oneLine, truncate } from "~/utils/log.server";

/**
 * One uncached read of Bluesky and/or Mastodon, without Supabase: the same picking and shaping as the edge function
 * (supabase/functions/_shared/latest-post). Never takes longer than `timeoutMs`; any failure is one log line
 * starting with 'Failed to fetch tweet' and null (a redirect to another origin among them), except a rate limit with a known reset, which rejects with
 * RetryLater so that the cache waits for the reset.
 */
export async function callSocialSources(
  sources: SocialSources,
  timeoutMs: number,
  log: Log,
  fetchImpl: typeof fetch = fetch,
): Promise<LatestPostBody | null> {
  let failure: RetryLater | undefined;
  try {
    const outcome = await fetchSocialPost(sources, { fetch: sameOriginFetch(fetchImpl), timeoutMs });
    if (outcome.ok) return { ...outcome.post, text: truncate(outcome.post.text, MAX_TEXT_CHARS) };
    log(`${LOG_PREFIX}: ${oneLine(outcome.cause, MAX_CAUSE_CHARS)}`);
    if (outcome.retryAfterSeconds) failure = new RetryLater(outcome.retryAfterSeconds * 1000);
  } catch (error) {
    log(
      `${LOG_PREFIX}: ${oneLine(`exception: ${error instanceof Error ? error.name : typeof error}`, MAX_CAUSE_CHARS)}`,
    );
  }
  // Outside the try: the cache remembers a rate limit until it lifts (swr-cache.server.ts).
  if (failure) throw failure;
  return null;
}
