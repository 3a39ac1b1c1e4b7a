import { describe, expect, it } from "vitest";
import { createSwrCache, type SwrCacheOptions } from "~/latest-post/swr-cache.server";

const TTL = 300_000;
const FAILURE_TTL = 30_000;

/** A fetcher whose calls stay pending until the test settles them, one by one, in order. */
function controlledFetcher<T>() {
  const pending: { resolve: (value: T | null) => void; reject: (error: unknown) => void }[] = [];
  let calls = 0;
  return {
    fetch: () => {
      calls += 1;
      return new Promise<T | null>((resolve, reject) => pending.push({ resolve, reject }));
    },
    get calls() {
      return calls;
    },
    get pending() {
      return pending.length;
    },
    async resolve(value: T | null) {
      const next = pending.shift();
      if (!next) throw new Error("no call is pending");
      next.resolve(value);
      await settle();
    },
    async reject(error: unknown) {
      const next = pending.shift();
      if (!next) throw new Error("no call is pending");
      next.reject(error);
      await settle();
    },
  };
}

// Lets the cache's own promise callbacks run (a few microtask turns).
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(overrides: Partial<SwrCacheOptions<string>> = {}) {
  let time = 1_000_000;
  const fetcher = controlledFetcher<string>();
  const cache = createSwrCache<string>({
    fetch: fetcher.fetch,
    now: () => time,
    ttlMs: TTL,
    failureTtlMs: FAILURE_TTL,
    ...overrides,
  });
  return {
    cache,
    fetcher,
    advance(ms: number) {
      time += ms;
    },
    /** A cold get() answered by the fetcher with `value`. */
    async load(value: string | null) {
      const answer = cache.get();
      await fetcher.resolve(value);
      return answer;
    },
  };
}

describe("createSwrCache", () => {
  it("calls the fetcher on a cold cache, then serves the fresh value from memory", async () => {
    const { cache, fetcher, load, advance } = setup();
    expect(cache.snapshot()).toEqual({ value: null, settled: false });
    await expect(load("first")).resolves.toBe("first");
    advance(TTL - 1);
    await expect(cache.get()).resolves.toBe("first");
    expect(cache.snapshot()).toEqual({ value: "first", settled: true });
    expect(fetcher.calls).toBe(1);
  });

  it("serves the stale value at once after the TTL while exactly one refresh runs", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load("first");
    advance(TTL);
    const views = await Promise.all(Array.from({ length: 20 }, () => cache.get()));
    expect(views).toEqual(Array(20).fill("first"));
    expect(cache.snapshot()).toEqual({ value: "first", settled: true });
    expect(fetcher.calls).toBe(2);
    expect(fetcher.pending).toBe(1);

    await fetcher.resolve("second");
    await expect(cache.get()).resolves.toBe("second");
    expect(fetcher.calls).toBe(2);
  });

  it("starts the background refresh from snapshot() too, once", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load("first");
    advance(TTL + 1);
    expect(cache.snapshot()).toEqual({ value: "first", settled: true });
    expect(cache.snapshot()).toEqual({ value: "first", settled: true });
    expect(fetcher.calls).toBe(2);
    await fetcher.resolve("second");
    expect(cache.snapshot()).toEqual({ value: "second", settled: true });
    expect(fetcher.calls).toBe(2);
  });

  it("forgets a value once it is past its stale window, and callers wait for a new call", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load("first");
    advance(2 * TTL);
    expect(cache.snapshot()).toEqual({ value: null, settled: false });
    const view = cache.get();
    await fetcher.resolve("second");
    await expect(view).resolves.toBe("second");
    expect(fetcher.calls).toBe(2);
  });

  it("shares one call between 50 concurrent cold callers", async () => {
    const { cache, fetcher } = setup();
    const views = Array.from({ length: 50 }, () => cache.get());
    expect(fetcher.calls).toBe(1);
    await fetcher.resolve("only");
    await expect(Promise.all(views)).resolves.toEqual(Array(50).fill("only"));
    expect(fetcher.calls).toBe(1);
  });

  it("remembers a failure for the failure TTL: null without a call, then calls again", async () => {
    const { cache, fetcher, load, advance } = setup();
    await expect(load(null)).resolves.toBeNull();
    advance(FAILURE_TTL - 1);
    await expect(cache.get()).resolves.toBeNull();
    expect(cache.snapshot()).toEqual({ value: null, settled: true });
    expect(fetcher.calls).toBe(1);

    advance(1);
    expect(cache.snapshot()).toEqual({ value: null, settled: false });
    await expect(load("back")).resolves.toBe("back");
    expect(fetcher.calls).toBe(2);
  });

  it("treats a rejected fetch as a failure, and shares it between concurrent callers", async () => {
    const { cache, fetcher } = setup();
    const views = Array.from({ length: 5 }, () => cache.get());
    await fetcher.reject(new Error("boom"));
    await expect(Promise.all(views)).resolves.toEqual(Array(5).fill(null));
    await expect(cache.get()).resolves.toBeNull();
    expect(fetcher.calls).toBe(1);
  });

  it("keeps serving a good value after a failed refresh, and retries once the failure is forgotten", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load("good");
    advance(TTL);
    await expect(cache.get()).resolves.toBe("good"); // stale: the refresh starts
    await fetcher.reject(new Error("function down"));
    expect(fetcher.calls).toBe(2);

    // The failure is remembered: the stale good value is served and the function is left alone.
    advance(FAILURE_TTL - 1);
    await expect(cache.get()).resolves.toBe("good");
    expect(fetcher.calls).toBe(2);

    // Once the failure is forgotten, the next view tries again in the background, still serving the good value.
    advance(1);
    await expect(cache.get()).resolves.toBe("good");
    expect(fetcher.calls).toBe(3);
    await fetcher.resolve("newer");
    await expect(cache.get()).resolves.toBe("newer");
    expect(fetcher.calls).toBe(3);
  });

  it("drops the good value when it expires, even while a failure is remembered", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load("good");
    advance(2 * TTL - FAILURE_TTL / 2);
    await expect(cache.get()).resolves.toBe("good"); // stale: the refresh starts, and fails
    await fetcher.resolve(null);

    advance(FAILURE_TTL / 2 - 1);
    await expect(cache.get()).resolves.toBe("good");
    advance(1); // the good value expires; the failure is still remembered: nothing to show, and no call
    await expect(cache.get()).resolves.toBeNull();
    expect(cache.snapshot()).toEqual({ value: null, settled: true });
    expect(fetcher.calls).toBe(2);

    advance(FAILURE_TTL / 2); // both forgotten: cold again
    expect(cache.snapshot()).toEqual({ value: null, settled: false });
    expect(fetcher.calls).toBe(2);
  });

  it("replaces a value after a successful refresh and forgets an earlier failure", async () => {
    const { cache, fetcher, load, advance } = setup();
    await load(null);
    advance(FAILURE_TTL);
    await load("good");
    advance(TTL - 1);
    await expect(cache.get()).resolves.toBe("good");
    expect(fetcher.calls).toBe(2);
  });

  it("with TTL 0 keeps nothing: every sequential call reaches the fetcher", async () => {
    const { cache, fetcher, load } = setup({ ttlMs: 0, failureTtlMs: 0 });
    await expect(load("one")).resolves.toBe("one");
    expect(cache.snapshot()).toEqual({ value: null, settled: false });
    await expect(load("two")).resolves.toBe("two");
    await expect(load(null)).resolves.toBeNull();
    await expect(load("three")).resolves.toBe("three");
    expect(fetcher.calls).toBe(4);
  });

  it("with TTL 0 still shares a call that is already running", async () => {
    const { cache, fetcher } = setup({ ttlMs: 0 });
    const views = [cache.get(), cache.get(), cache.get()];
    await fetcher.resolve("shared");
    await expect(Promise.all(views)).resolves.toEqual(["shared", "shared", "shared"]);
    expect(fetcher.calls).toBe(1);
  });

  it("with TTL 0 still remembers failures for the failure TTL", async () => {
    const { cache, fetcher, load, advance } = setup({ ttlMs: 0 });
    await load(null);
    await expect(cache.get()).resolves.toBeNull();
    expect(fetcher.calls).toBe(1);
    advance(FAILURE_TTL);
    await load("ok");
    expect(fetcher.calls).toBe(2);
  });
});
