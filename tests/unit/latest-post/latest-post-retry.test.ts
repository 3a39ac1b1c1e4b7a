import { describe, expect, it } from "vitest";
import { createSwrCache, RetryLater } from "~/latest-post/swr-cache.server";

const TTL = 300_000;
const FAILURE_TTL = 30_000;

/** A cache whose fetcher answers from a script, on a fake clock. */
function scripted(answers: (() => Promise<string | null>)[], failureTtlMs = FAILURE_TTL) {
  let t = 0;
  let calls = 0;
  const cache = createSwrCache<string>({
    fetch: () => {
      calls += 1;
      const next = answers.shift();
      if (!next) throw new Error("no answer scripted");
      return next();
    },
    now: () => t,
    ttlMs: TTL,
    failureTtlMs,
  });
  return {
    cache,
    at: (ms: number) => (t = ms),
    get calls() {
      return calls;
    },
  };
}

describe("a rate limit with a known reset", () => {
  it("is remembered until the reset, not just the failure TTL", async () => {
    const run = scripted([() => Promise.reject(new RetryLater(120_000)), () => Promise.resolve("after the reset")]);
    expect(await run.cache.get()).toBeNull();
    run.at(FAILURE_TTL + 1);
    expect(await run.cache.get()).toBeNull();
    run.at(119_999);
    expect(await run.cache.get()).toBeNull();
    expect(run.calls).toBe(1);
    run.at(120_000);
    expect(await run.cache.get()).toBe("after the reset");
    expect(run.calls).toBe(2);
  });

  it("a reset sooner than the failure TTL still waits the TTL", async () => {
    const run = scripted([() => Promise.reject(new RetryLater(1_000)), () => Promise.resolve("later")]);
    expect(await run.cache.get()).toBeNull();
    run.at(FAILURE_TTL - 1);
    expect(await run.cache.get()).toBeNull();
    run.at(FAILURE_TTL);
    expect(await run.cache.get()).toBe("later");
  });

  it("is not remembered when remembering failures is off", async () => {
    const run = scripted([() => Promise.reject(new RetryLater(120_000)), () => Promise.resolve("at once")], 0);
    expect(await run.cache.get()).toBeNull();
    expect(await run.cache.get()).toBe("at once");
  });
});
