import { describe, expect, it } from "vitest";
import { createRateLimiter } from "~/newsletter/rate-limit.server";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const hits = (limiter: { hit(key: string): boolean }, key: string, count: number) =>
  Array.from({ length: count }, () => limiter.hit(key));

describe("createRateLimiter", () => {
  it("allows the limit within a window and refuses the next attempt", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now: time.now });
    expect(hits(limiter, "1.2.3.4", 4)).toEqual([true, true, true, false]);
  });

  it("counts each client on its own", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, now: time.now });
    expect(hits(limiter, "a", 3)).toEqual([true, true, false]);
    expect(hits(limiter, "b", 2)).toEqual([true, true]);
  });

  it("is disabled by a limit of 0", () => {
    const limiter = createRateLimiter({ limit: 0, windowMs: 60_000 });
    expect(hits(limiter, "a", 1_000).every(Boolean)).toBe(true);
    expect(limiter.size).toBe(0);
  });

  it("does not let a client double its limit across a window boundary", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 4, windowMs: 60_000, now: time.now });
    time.advance(59_000);
    expect(hits(limiter, "a", 4).every(Boolean)).toBe(true);
    // Just after the boundary the previous window still weighs almost fully.
    time.advance(2_000);
    expect(limiter.hit("a")).toBe(false);
  });

  it("allows again once a full window has passed", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, now: time.now });
    expect(hits(limiter, "a", 3)).toEqual([true, true, false]);
    time.advance(120_000);
    expect(hits(limiter, "a", 3)).toEqual([true, true, false]);
  });

  it("does not count refused attempts, so a client that keeps trying is not locked out for longer", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, now: time.now });
    expect(limiter.hit("a")).toBe(true);
    for (let i = 0; i < 50; i++) expect(limiter.hit("a")).toBe(false);
    time.advance(120_000);
    expect(limiter.hit("a")).toBe(true);
  });

  it("forgets idle clients, so memory follows recent traffic only", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 5, windowMs: 60_000, now: time.now });
    for (let i = 0; i < 100; i++) limiter.hit(`10.0.0.${i}`);
    expect(limiter.size).toBe(100);
    time.advance(120_000);
    limiter.hit("fresh");
    expect(limiter.size).toBe(1);
  });

  it("never tracks more than maxKeys clients, dropping the least recently seen", () => {
    const time = clock();
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 3, now: time.now });
    for (const key of ["a", "b", "c"]) expect(limiter.hit(key)).toBe(true);
    expect(limiter.hit("a")).toBe(false); // "a" is now the most recently seen
    expect(limiter.hit("d")).toBe(true); // evicts "b", the least recently seen
    expect(limiter.size).toBe(3);
    expect(limiter.hit("a")).toBe(false); // still tracked, still limited
    expect(limiter.hit("b")).toBe(true); // forgotten, so counted afresh
    expect(limiter.size).toBe(3);
  });
});
