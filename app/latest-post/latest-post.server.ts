import { type SocialSources, readSocialSources } from "../../supabase/functions/_shared/latest-post/fetch-latest.ts";
import type { LatestPostBody } from "../../supabase/functions/_shared/latest-post/post.ts";
import { createServerSupabaseClient } from "~/utils/supabase.server";
import { env } from "~/utils/env.server";
import { callLatestPostFunction } from "~/latest-post/function-call.server";
import type { Log } from "~/latest-post/limits.server";
import { callSocialSources } from "~/latest-post/social-call.server";
import { createSwrCache, type SwrCache } from "~/latest-post/swr-cache.server";
import { withinTimeBox } from "~/utils/time-box.server";

/** `{ text, url?, source?, createdAt? }`: the same shape the edge function answers. */
export type LatestPost = LatestPostBody;

/** How long the call itself may take: a cold edge function plus a call to X can outlast a page's wait by far. */
const DEFAULT_HARD_LIMIT_MS = 10_000;

export interface LatestPostSourceOptions {
  /** Both or neither; with them, the edge function is asked (and `social` is the function's business). */
  supabaseUrl?: string;
  anonKey?: string;
  /** Without Supabase: Bluesky and/or Mastodon, read directly. Without either, no call and no card. */
  social?: SocialSources;
  /** How long a page waits for the call. The call goes on after that (up to hardLimitMs) and fills the cache. */
  timeoutMs: number;
  /** How long the call may take before it counts as a failure; at least timeoutMs. Default 10 s. */
  hardLimitMs?: number;
  ttlSeconds: number;
  failureTtlSeconds: number;
  /** For tests: a fake clock (milliseconds). */
  now?: () => number;
  /** For tests: where the one failure line goes. */
  log?: Log;
}

export interface LatestPostSource {
  get(): Promise<LatestPost | null>;
  snapshot(): { post: LatestPost | null; settled: boolean };
}

type Fetcher = (hardLimitMs: number, log: Log) => Promise<LatestPost | null>;

function chooseFetcher(options: LatestPostSourceOptions): Fetcher | null {
  const { supabaseUrl, anonKey, social } = options;
  if (supabaseUrl && anonKey) {
    const client = createServerSupabaseClient(supabaseUrl, anonKey);
    return (hardLimitMs, log) => callLatestPostFunction(client, hardLimitMs, log);
  }
  if (social) return (hardLimitMs, log) => callSocialSources(social, hardLimitMs, log);
  return null;
}

/** One cached, time-boxed source of the owner's latest post. The app uses the one built from env below. */
export function createLatestPostSource(options: LatestPostSourceOptions): LatestPostSource {
  const fetcher = chooseFetcher(options);
  if (!fetcher) return { get: async () => null, snapshot: () => ({ post: null, settled: true }) };
  const log = options.log ?? ((line: string) => console.error(line));
  const hardLimitMs = Math.max(options.hardLimitMs ?? DEFAULT_HARD_LIMIT_MS, options.timeoutMs);
  const cache: SwrCache<LatestPost> = createSwrCache({
    fetch: () => fetcher(hardLimitMs, log),
    now: options.now ?? Date.now,
    ttlMs: options.ttlSeconds * 1000,
    failureTtlMs: options.failureTtlSeconds * 1000,
  });
  return {
    // The time box bounds the page's wait, not the call: a page that stops waiting renders without the card, the
    // call goes on (still one at a time) and its answer is cached for the next view. Only the call's own end counts
    // as a success or a failure.
    get: () => withinTimeBox(cache.get(), options.timeoutMs, () => null),
    snapshot() {
      const { value, settled } = cache.snapshot();
      return { post: value, settled };
    },
  };
}

// env.server.ts has already refused values that do not parse, so this is either the sources or null.
const social = readSocialSources(env);

const source = createLatestPostSource({
  supabaseUrl: env.SUPABASE_URL,
  anonKey: env.SUPABASE_ANON_KEY,
  social: social && !("error" in social) ? social : undefined,
  timeoutMs: env.LATEST_POST_TIMEOUT_MS,
  hardLimitMs: env.LATEST_POST_HARD_LIMIT_MS,
  ttlSeconds: env.LATEST_POST_TTL_SECONDS,
  failureTtlSeconds: env.LATEST_POST_FAILURE_TTL_SECONDS,
});

/** The owner's latest post, or null when there is none to show (no source configured, or any failure). */
export function getLatestPost(): Promise<LatestPost | null> {
  return source.get();
}

/**
 * What getLatestPost would answer right now without waiting, for the home page cache: `settled` is false when only a
 * call could tell (nothing cached yet), and then the page must be rendered the normal way. A stale value starts its
 * background refresh here too.
 */
export function latestPostSnapshot(): { post: LatestPost | null; settled: boolean } {
  return source.snapshot();
}
