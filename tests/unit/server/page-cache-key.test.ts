import { describe, expect, it } from "vitest";
import { homePageCacheKey } from "~/server-build/home-page-key.server";
// The server's own module (plain JS next to server/index.mjs).
import { negotiateEncoding } from "../../../server/page-cache.mjs";

const settled = (text: string | null) => ({ post: text === null ? null : { text }, settled: true });
const dateOf = (key: string | null) => (JSON.parse(key ?? "null") as [string, string | null])[0];

describe("homePageCacheKey", () => {
  it("changes at midnight in Brussels, not at midnight UTC (summer time, UTC+2)", () => {
    const none = settled(null);
    expect(dateOf(homePageCacheKey(new Date("2025-10-24T21:59:59.999Z"), none))).toBe("2025-10-24");
    expect(dateOf(homePageCacheKey(new Date("2025-10-24T22:00:00.000Z"), none))).toBe("2025-10-25");
    // 00:30 UTC is 02:30 in Brussels: the same day on both sides.
    expect(dateOf(homePageCacheKey(new Date("2025-10-25T00:30:00Z"), none))).toBe("2025-10-25");
  });

  it("changes at midnight in Brussels in winter time (UTC+1) and on the night the clocks go back", () => {
    const none = settled(null);
    expect(dateOf(homePageCacheKey(new Date("2025-12-31T22:59:59.999Z"), none))).toBe("2025-12-31");
    expect(dateOf(homePageCacheKey(new Date("2025-12-31T23:00:00.000Z"), none))).toBe("2026-01-01");
    // 26 October 2025: 03:00 CEST becomes 02:00 CET; the day started at 22:00Z the evening before and ends at 23:00Z.
    expect(dateOf(homePageCacheKey(new Date("2025-10-25T21:59:59Z"), none))).toBe("2025-10-25");
    expect(dateOf(homePageCacheKey(new Date("2025-10-25T22:00:00Z"), none))).toBe("2025-10-26");
    expect(dateOf(homePageCacheKey(new Date("2025-10-26T22:59:59Z"), none))).toBe("2025-10-26");
    expect(dateOf(homePageCacheKey(new Date("2025-10-26T23:00:00Z"), none))).toBe("2025-10-27");
  });

  it("is the same all day long for the same post, and differs by post", () => {
    const morning = new Date("2025-11-03T06:00:00Z");
    const evening = new Date("2025-11-03T20:00:00Z");
    expect(homePageCacheKey(morning, settled("Shipped it"))).toBe(homePageCacheKey(evening, settled("Shipped it")));
    expect(homePageCacheKey(morning, settled("Shipped it"))).not.toBe(homePageCacheKey(morning, settled("Next")));
    // No post and an empty post are different pages' worth of state.
    expect(homePageCacheKey(morning, settled(null))).not.toBe(homePageCacheKey(morning, settled("")));
    // No text can make two different (date, post) pairs collide.
    expect(homePageCacheKey(new Date("2025-11-03T06:00:00Z"), settled('x","2025-11-04'))).not.toBe(
      homePageCacheKey(new Date("2025-11-04T06:00:00Z"), settled("x")),
    );
  });

  it("is null while the latest post is not settled: the page is rendered normally", () => {
    expect(homePageCacheKey(new Date(), { post: null, settled: false })).toBeNull();
    expect(homePageCacheKey(new Date(), { post: { text: "stale" }, settled: false })).toBeNull();
  });
});

describe("negotiateEncoding", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0.5, br;q=0.8", "br"],
    ["gzip;q=1, br;q=0.5", "gzip"],
    ["gzip;q=0", "identity"],
    ["*", "br"],
    ["*;q=0", "identity"],
    ["deflate", "identity"],
    ["GZIP", "gzip"],
  ] as const)("%j → %s", (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});
