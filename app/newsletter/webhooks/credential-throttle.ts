/**
 * Failed credentials slowed down per relay and client: a few wrong passwords or signatures pass (a relay's owner
 * pasting the wrong secret sees 401s), then each further one locks the pair out for twice as long as the last, up to
 * a quarter of an hour, answered 429 before anything is checked. Brevo retries a 429; a guesser gets a few tries an
 * hour instead of a thousand a second. Bounded: the oldest pairs are forgotten first.
 */
export const FREE_FAILURES = 5;
const FIRST_LOCK_MS = 2_000;
const MAX_LOCK_MS = 15 * 60 * 1000;
/** A pair with no failure for this long starts again from none. */
const FORGET_MS = 60 * 60 * 1000;

interface Failures {
  count: number;
  last: number;
  lockedUntil: number;
}

export function createCredentialThrottle(maxKeys = 10_000) {
  const pairs = new Map<string, Failures>();
  return {
    /** Seconds to wait before `key` may try again, or 0 when it may now. */
    waitSeconds(key: string, now: number): number {
      const entry = pairs.get(key);
      if (!entry) return 0;
      if (now - entry.last > FORGET_MS) {
        pairs.delete(key);
        return 0;
      }
      return entry.lockedUntil > now ? Math.ceil((entry.lockedUntil - now) / 1000) : 0;
    },
    /** Counts a refused credential or signature; past the free ones, locks the pair for longer each time. */
    failed(key: string, now: number): void {
      const entry = pairs.get(key) ?? { count: 0, last: now, lockedUntil: 0 };
      pairs.delete(key);
      entry.count += 1;
      entry.last = now;
      if (entry.count >= FREE_FAILURES) {
        const lock = Math.min(FIRST_LOCK_MS * 2 ** (entry.count - FREE_FAILURES), MAX_LOCK_MS);
        entry.lockedUntil = now + lock;
      }
      pairs.set(key, entry);
      if (pairs.size > maxKeys) pairs.delete(pairs.keys().next().value!);
    },
    /** Good credentials: the pair starts again from none. */
    succeeded(key: string): void {
      pairs.delete(key);
    },
    get size() {
      return pairs.size;
    },
  };
}
