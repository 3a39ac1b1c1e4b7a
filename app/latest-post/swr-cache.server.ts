/**
 * A one-value cache for a slow, rate-limited source: fresh values come from memory, stale ones are served while one
 * refresh runs in the background (stale while revalidate), concurrent callers share a single call, and failures are
 * remembered for a while so a failing source is not hammered. No timers and no I/O: the clock and the fetcher are
 * passed in, which keeps it deterministic under test.
 *
 * A value's life, counted from the end of the call that produced it:
 *   [0, ttl)         fresh: served, no call;
 *   [ttl, 2 × ttl)   stale: served at once, and one background refresh starts (unless a failure is remembered);
 *   2 × ttl onwards  expired: forgotten, callers wait for a call.
 * A failed refresh never replaces a good value: the good value is served until it expires.
 */

/**
 * A fetch that rejects with this is a failure the source itself dated: a rate limit that lifts in `ms`. It is
 * remembered that long (when longer than the failure TTL, and unless remembering failures is off), so the site does
 * not spend requests that can only be refused.
 */
export class RetryLater extends Error {
  constructor(readonly ms: number) {
    super(`retry in ${ms} ms`);
    this.name = "RetryLater";
  }
}

export interface SwrCacheOptions<T> {
  /** Resolves to the value, or null for "nothing to show" (a failure). A rejection counts as a failure too. */
  fetch: () => Promise<T | null>;
  /** Milliseconds on any monotonic-enough clock; `Date.now` in production. */
  now: () => number;
  /** How long a value is fresh. 0 disables keeping values (concurrent callers still share one call). */
  ttlMs: number;
  /** How long a failure is remembered: no call is made in that time. 0 disables. */
  failureTtlMs: number;
}

export interface SwrSnapshot<T> {
  /** What get() would resolve to right now, when `settled`. */
  value: T | null;
  /** True when get() would answer without waiting for a call. */
  settled: boolean;
}

export interface SwrCache<T> {
  get(): Promise<T | null>;
  /** Like get(), without waiting: a stale value starts its background refresh here too. */
  snapshot(): SwrSnapshot<T>;
}

type Decision<T> =
  | { kind: "hit"; value: T | null; refresh: boolean } // answer now; `refresh`: start the background call
  | { kind: "wait" }; // only a call can tell

export function createSwrCache<T>(options: SwrCacheOptions<T>): SwrCache<T> {
  const { fetch, now, ttlMs, failureTtlMs } = options;

  let good: { value: T; at: number } | undefined;
  let failedUntil = -Infinity;
  let inFlight: Promise<T | null> | undefined;

  function decide(): Decision<T> {
    const t = now();
    // A stale value is served while it revalidates, for at most one more TTL.
    if (good && t - good.at >= 2 * ttlMs) good = undefined;
    const failureRemembered = t < failedUntil;
    if (good) {
      const fresh = t - good.at < ttlMs;
      return { kind: "hit", value: good.value, refresh: !fresh && !failureRemembered && !inFlight };
    }
    if (failureRemembered) return { kind: "hit", value: null, refresh: false };
    return { kind: "wait" };
  }

  function call(): Promise<T | null> {
    inFlight ??= (async () => {
      let value: T | null;
      let holdOffMs = failureTtlMs;
      try {
        value = await fetch();
      } catch (error) {
        value = null;
        if (error instanceof RetryLater) holdOffMs = Math.max(failureTtlMs, error.ms);
      }
      const t = now();
      if (value === null) {
        if (failureTtlMs > 0) failedUntil = t + holdOffMs;
      } else {
        failedUntil = -Infinity;
        good = ttlMs > 0 ? { value, at: t } : undefined;
      }
      return value;
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  function answerNow(decision: Extract<Decision<T>, { kind: "hit" }>): T | null {
    // The background refresh settles into the cache; its own failure is already handled inside call().
    if (decision.refresh) void call();
    return decision.value;
  }

  return {
    get() {
      const decision = decide();
      if (decision.kind === "hit") return Promise.resolve(answerNow(decision));
      return call();
    },
    snapshot() {
      const decision = decide();
      if (decision.kind === "hit") return { value: answerNow(decision), settled: true };
      return { value: null, settled: false };
    },
  };
}
