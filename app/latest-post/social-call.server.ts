import { type SocialSources, fetchSocialPost } from "../../supabase/functions/_shared/latest-post/fetch-latest.ts";
import type { LatestPostBody } from "../../supabase/functions/_shared/latest-post/post.ts";
import { LOG_PREFIX, MAX_CAUSE_CHARS, MAX_TEXT_CHARS, type Log } from "~/latest-post/limits.server";
import { oneLine, truncate } from "~/utils/log.server";

/**
 * One uncached read of Bluesky and/or Mastodon, without Supabase: the same picking and shaping as the edge function
 * (supabase/functions/_shared/latest-post). Never throws and never takes longer than `timeoutMs`; any failure is
 * null plus one log line starting with 'Failed to fetch tweet'.
 */
export async function callSocialSources(
  sources: SocialSources,
  timeoutMs: number,
  log: Log,
  fetchImpl: typeof fetch = fetch,
): Promise<LatestPostBody | null> {
  try {
    const outcome = await fetchSocialPost(sources, { fetch: fetchImpl, timeoutMs });
    if (outcome.ok) return { ...outcome.post, text: truncate(outcome.post.text, MAX_TEXT_CHARS) };
    log(`${LOG_PREFIX}: ${oneLine(outcome.cause, MAX_CAUSE_CHARS)}`);
  } catch (error) {
    log(
      `${LOG_PREFIX}: ${oneLine(`exception: ${error instanceof Error ? error.name : typeof error}`, MAX_CAUSE_CHARS)}`,
    );
  }
  return null;
}
