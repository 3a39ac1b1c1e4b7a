// The engine's one pacer and one pause: how far apart sends start, and a wait that ends early when told to stop.

/**
 * Start times spaced 1/rate apart. Starts that come late by at most `burst` slots (the event loop held by a disk sync)
 * catch up, so the average holds the rate; after a longer pause the schedule starts afresh: idle time is never
 * banked, and a send's first second never goes over the rate. Answers how long to wait before the next start.
 */
export function createPacer(ratePerSecond: number, burst: number, now: () => number) {
  const gap = ratePerSecond > 0 ? 1000 / ratePerSecond : 0;
  let next = -Infinity;
  return (): number => {
    if (gap === 0) return 0;
    const at = now();
    if (at - next > gap * burst) next = at;
    const wait = next - at;
    next += gap;
    return Math.max(0, wait);
  };
}

export type Pacer = ReturnType<typeof createPacer>;

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
