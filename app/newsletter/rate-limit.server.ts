import { env } from "~/utils/env.server";

export interface RateLimiter {
  /** Counts one attempt by `key`; false when the key is over its limit (the refused attempt is not counted). */
  hit(key: string): boolean;
  /** How many keys are currently tracked (for tests and the memory bound). */
  readonly size: number;
}

export interface RateLimiterOptions {
  /** Attempts allowed per window; 0 disables the limiter. */
  limit: number;
  windowMs: number;
  /** Upper bound on tracked keys, so a flood of distinct addresses cannot grow memory without end. */
  maxKeys?: number;
  now?: () => number;
}

interface Counter {
  lastSeen: number;
  windowStart: number;
  current: number;
  previous: number;
}

/**
 * A sliding-window counter per key: the previous fixed window's count, weighted by how much of it still overlaps the
 * last `windowMs`, plus the current window's count. Two numbers per key, and no burst of twice the limit across a
 * window boundary as a plain fixed window would allow.
 */
export function createRateLimiter({
  limit,
  windowMs,
  maxKeys = 10_000,
  now = Date.now,
}: RateLimiterOptions): RateLimiter {
  const counters = new Map<string, Counter>();

  function roll(counter: Counter, at: number) {
    const elapsedWindows = Math.floor((at - counter.windowStart) / windowMs);
    if (elapsedWindows <= 0) return;
    counter.previous = elapsedWindows === 1 ? counter.current : 0;
    counter.current = 0;
    counter.windowStart += elapsedWindows * windowMs;
  }

  // hit() re-inserts its key, so the Map iterates from the least to the most recently seen key.
  function evict(at: number) {
    for (const [key, counter] of counters) {
      // A key idle for two windows carries no weight any more; one still in use goes only when the map is full.
      if (at - counter.lastSeen < 2 * windowMs && counters.size < maxKeys) break;
      counters.delete(key);
    }
  }

  return {
    hit(key) {
      if (limit <= 0) return true;
      const at = now();
      let counter = counters.get(key);
      if (counter) {
        counters.delete(key);
      } else {
        evict(at);
        counter = { lastSeen: at, windowStart: at, current: 0, previous: 0 };
      }
      counter.lastSeen = at;
      counters.set(key, counter);
      roll(counter, at);
      const overlap = 1 - (at - counter.windowStart) / windowMs;
      const estimate = counter.previous * overlap + counter.current;
      if (estimate >= limit) return false;
      counter.current += 1;
      return true;
    },
    get size() {
      return counters.size;
    },
  };
}

/** Newsletter sign-ups per visitor address per minute (SUBSCRIBE_RATE_LIMIT_PER_MINUTE; 0 turns it off). */
export const subscribeRateLimiter = createRateLimiter({
  limit: env.SUBSCRIBE_RATE_LIMIT_PER_MINUTE,
  windowMs: 60_000,
});

/** Unsubscribe posts with a token that belongs to nobody, per visitor address per minute (the sign-up limit). */
export const unsubscribeRateLimiter = createRateLimiter({
  limit: env.SUBSCRIBE_RATE_LIMIT_PER_MINUTE,
  windowMs: 60_000,
});
