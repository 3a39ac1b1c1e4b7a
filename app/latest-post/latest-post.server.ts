import type { SupabaseClient } from "@supabase/supabase-js";
import { createServerSupabaseClient } from "~/utils/supabase.server";
import { env } from "~/utils/env.server";
import { describeError, describeValue, oneLine, truncate } from "~/utils/log.server";
import { createSwrCache, type SwrCache } from "~/latest-post/swr-cache.server";
import { withinTimeBox } from "~/utils/time-box.server";

export interface LatestPost {
  text: string;
}

const LATEST_POST_FUNCTION = "get-latest-tweet";
const LOG_PREFIX = "Failed to fetch tweet";
// A misbehaving function must not be able to put a novel into every page; the card clamps far sooner anyway.
const MAX_TEXT_CHARS = 1_000;
const MAX_CAUSE_CHARS = 300;
/** How long the call itself may take: a cold edge function plus a call to X can outlast a page's wait by far. */
const DEFAULT_HARD_LIMIT_MS = 10_000;

type Log = (line: string) => void;

export interface LatestPostSourceOptions {
  /** Both or neither; without them there is no call and no card. */
  supabaseUrl?: string;
  anonKey?: string;
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

/** One cached, time-boxed source of the owner's latest post. The app uses the one built from env below. */
export function createLatestPostSource(options: LatestPostSourceOptions): LatestPostSource {
  const { supabaseUrl, anonKey } = options;
  if (!supabaseUrl || !anonKey) {
    return { get: async () => null, snapshot: () => ({ post: null, settled: true }) };
  }
  const client = createServerSupabaseClient(supabaseUrl, anonKey);
  const log = options.log ?? ((line: string) => console.error(line));
  const hardLimitMs = Math.max(options.hardLimitMs ?? DEFAULT_HARD_LIMIT_MS, options.timeoutMs);
  const cache: SwrCache<LatestPost> = createSwrCache({
    fetch: () => fetchLatestPost(client, hardLimitMs, log),
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

/**
 * One uncached call of the edge function. Never throws and never takes longer than `timeoutMs` (the call's hard
 * limit): any failure is null plus one log line starting with 'Failed to fetch tweet'.
 */
async function fetchLatestPost(client: SupabaseClient, timeoutMs: number, log: Log): Promise<LatestPost | null> {
  const fail = (cause: string) => {
    // The cause can come from the function's answer: keep the log line one line, and short.
    log(`${LOG_PREFIX}: ${oneLine(cause, MAX_CAUSE_CHARS)}`);
    return null;
  };
  try {
    // No body: the function takes no input. `timeout` aborts the request, including a body that never ends.
    const { data, error } = await client.functions.invoke<unknown>(LATEST_POST_FUNCTION, { timeout: timeoutMs });
    if (error) return fail(describeInvokeError(error, timeoutMs));
    if (!isRecord(data)) return fail(`unexpected answer (${describeValue(data)}), expected a JSON object`);
    // Truthy, as the function reports trouble with a message; `error: null` next to a text is no failure.
    if (data.error) return fail(`function reported an error: ${String(data.error)}`);
    if (typeof data.text !== "string") return fail(`text is ${describeValue(data.text)}, expected a string`);
    const text = data.text.trim();
    if (text === "") return fail("text is empty");
    return { text: truncate(text, MAX_TEXT_CHARS) };
  } catch (error) {
    return fail(`exception: ${describeError(error)}`);
  }
}

function describeInvokeError(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return describeValue(error);
  // Compared by name, not instanceof: the ESM and CJS builds of functions-js each have their own classes.
  const context: unknown = (error as { context?: unknown }).context;
  if (error.name === "FunctionsHttpError" || error.name === "FunctionsRelayError") {
    const status =
      isRecord(context) && typeof context.status === "number" ? `HTTP ${context.status}` : "unknown status";
    return `${error.name === "FunctionsRelayError" ? "relay error" : "function answered"} ${status}`;
  }
  if (error.name === "FunctionsFetchError") {
    return isAbort(context) ? timedOut(timeoutMs) : `network error: ${describeError(context)}`;
  }
  // An abort while the body is being read is not wrapped in a FunctionsFetchError.
  return isAbort(error) ? timedOut(timeoutMs) : describeError(error);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function timedOut(timeoutMs: number): string {
  return `no answer within ${timeoutMs} ms`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const source = createLatestPostSource({
  supabaseUrl: env.SUPABASE_URL,
  anonKey: env.SUPABASE_ANON_KEY,
  timeoutMs: env.LATEST_POST_TIMEOUT_MS,
  hardLimitMs: env.LATEST_POST_HARD_LIMIT_MS,
  ttlSeconds: env.LATEST_POST_TTL_SECONDS,
  failureTtlSeconds: env.LATEST_POST_FAILURE_TTL_SECONDS,
});

/** The owner's latest post, or null when there is none to show (no Supabase, or any failure). */
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
