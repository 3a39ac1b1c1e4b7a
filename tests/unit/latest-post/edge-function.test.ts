import { describe, expect, it } from "vitest";
import {
  type CachedText,
  type Shaped,
  apiBase,
  decodeEntities,
  FRESH_FOR_MS,
  fromCache,
  latestText,
  parseUserRef,
  readConfig,
  retryAfterSeconds,
  shapeTimeline,
  STALE_FOR_MS,
  success,
  timelineUrl,
  upstreamTimeoutMs,
  userLookupUrl,
  withStaleFallback,
  X_API_BASE,
} from "../../../supabase/functions/get-latest-tweet/shape";
import { NOW, NOW_SECONDS, answer, expectFailure, ok, timeline } from "../../support/x-answers";

describe("parseUserRef", () => {
  it.each([
    ["2244994945", { kind: "id", id: "2244994945" }],
    [" 2244994945\n", { kind: "id", id: "2244994945" }],
    ["@some_one", { kind: "username", username: "some_one" }],
    ["SomeOne99", { kind: "username", username: "SomeOne99" }],
  ])("reads %j", (raw, expected) => {
    expect(parseUserRef(raw)).toEqual(expected);
  });

  it.each([
    undefined,
    "",
    "   ",
    "@",
    "@way_too_long_handle",
    "some one",
    "https://x.com/someone",
    "12345678901234567890",
  ])("refuses %j", (raw) => {
    expect(parseUserRef(raw)).toBeNull();
  });
});

describe("readConfig", () => {
  it("returns the token and user when both are usable", () => {
    expect(readConfig({ X_BEARER_TOKEN: " abc ", X_USER_ID: "42" })).toEqual({
      token: "abc",
      user: { kind: "id", id: "42" },
    });
  });

  it.each([{}, { X_BEARER_TOKEN: "" }, { X_BEARER_TOKEN: "  ", X_USER_ID: "42" }])(
    "answers 500 when the token is missing: %j",
    (env) => {
      expectFailure(readConfig(env) as Shaped, 500, "X_BEARER_TOKEN is not set");
    },
  );

  it("answers 500 when the user id is unusable", () => {
    expectFailure(
      readConfig({ X_BEARER_TOKEN: "abc", X_USER_ID: "not a user" }) as Shaped,
      500,
      "X_USER_ID must be a numeric user id or an @handle",
    );
  });
});

describe("URLs", () => {
  it("asks for the five latest original posts, with the long-post text", () => {
    const url = new URL(timelineUrl("2244994945"));
    expect(url.origin + url.pathname).toBe("https://api.x.com/2/users/2244994945/tweets");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      max_results: "5",
      exclude: "replies,retweets",
      "tweet.fields": "note_tweet",
    });
  });

  it("looks a handle up by username", () => {
    expect(userLookupUrl("some_one")).toBe("https://api.x.com/2/users/by/username/some_one");
  });
});

describe("decodeEntities", () => {
  it("undoes the three escapes X applies, &amp; last", () => {
    expect(decodeEntities("a &lt;b&gt; &amp; c")).toBe("a <b> & c");
    expect(decodeEntities("&amp;lt;")).toBe("&lt;");
    expect(decodeEntities("&quot;kept&quot;")).toBe("&quot;kept&quot;");
  });
});

describe("latestText", () => {
  it("takes the newest post", () => {
    expect(latestText(timeline("newest", "older"))).toBe("newest");
  });

  it("skips posts with no usable text", () => {
    expect(latestText(timeline("", "   ", 42, null, "the real one"))).toBe("the real one");
    expect(latestText({ data: [null, "text", ["x"], { id: "1" }, { text: "found" }] })).toBe("found");
  });

  it("prefers the full text of a long post", () => {
    const long = "x".repeat(400);
    expect(latestText({ data: [{ id: "1", text: `${"x".repeat(270)}…`, note_tweet: { text: long } }] })).toBe(long);
    expect(latestText({ data: [{ id: "1", text: "short", note_tweet: { text: " " } }] })).toBe("short");
  });

  it("trims and decodes the text", () => {
    expect(latestText(timeline("  Ship it &amp; learn  \n"))).toBe("Ship it & learn");
  });

  it.each([
    null,
    undefined,
    42,
    "text",
    [],
    {},
    { data: null },
    { data: {} },
    { data: [] },
    { meta: { result_count: 0 } },
  ])("finds nothing in %j", (payload) => {
    expect(latestText(payload)).toBeNull();
  });
});

describe("cache helpers", () => {
  const cached = (ageMs: number): CachedText => ({ text: "cached post", fetchedAt: NOW - ageMs });

  describe("fromCache", () => {
    it("serves a fresh copy with the max-age it has left", () => {
      expect(fromCache(cached(0), NOW)).toEqual(success("cached post", 300));
      expect(fromCache(cached(100_500), NOW)).toEqual(success("cached post", 199));
      expect(fromCache(cached(FRESH_FOR_MS - 1), NOW)).toEqual(success("cached post", 1));
    });

    it("gives nothing when there is no copy, it has expired, or the clock went backwards", () => {
      expect(fromCache(null, NOW)).toBeNull();
      expect(fromCache(cached(FRESH_FOR_MS), NOW)).toBeNull();
      expect(fromCache(cached(-1), NOW)).toBeNull();
    });
  });

  describe("withStaleFallback", () => {
    const rateLimited = shapeTimeline(answer(429, "", String(NOW_SECONDS + 30)), NOW);
    const down = shapeTimeline({ kind: "network-error" }, NOW);

    it("passes success and 'no recent posts' through untouched", () => {
      const fresh = success("new");
      expect(withStaleFallback(fresh, cached(1_000), NOW)).toBe(fresh);
      const none = shapeTimeline(ok({ meta: { result_count: 0 } }), NOW);
      expect(withStaleFallback(none, cached(1_000), NOW)).toBe(none);
    });

    it("serves the earlier post briefly when X fails", () => {
      expect(withStaleFallback(rateLimited, cached(FRESH_FOR_MS * 3), NOW)).toEqual(success("cached post", 30));
      expect(withStaleFallback(down, cached(FRESH_FOR_MS * 3), NOW)).toEqual(success("cached post", 60));
    });

    it("keeps the failure when there is no earlier post or it is older than a day", () => {
      expect(withStaleFallback(down, null, NOW)).toBe(down);
      expect(withStaleFallback(down, cached(STALE_FOR_MS + 1), NOW)).toBe(down);
    });
  });
});

describe("retryAfterSeconds", () => {
  it("counts whole seconds from now to the reset", () => {
    expect(retryAfterSeconds(String(NOW_SECONDS + 61), NOW)).toBe(61);
  });
});

describe("where the X API is, and how long a call may take", () => {
  it("is the real X API unless X_API_BASE_URL names an http(s) address", () => {
    expect(apiBase(undefined)).toBe(X_API_BASE);
    expect(apiBase("")).toBe(X_API_BASE);
    expect(apiBase("not a url")).toBe(X_API_BASE);
    expect(apiBase("file:///etc/passwd")).toBe(X_API_BASE);
    expect(apiBase("http://127.0.0.1:4010/2/")).toBe("http://127.0.0.1:4010/2");
    expect(timelineUrl("42", apiBase("http://127.0.0.1:4010/2"))).toMatch(
      /^http:\/\/127\.0\.0\.1:4010\/2\/users\/42\/tweets\?/,
    );
    expect(userLookupUrl("me", "http://127.0.0.1:4010/2")).toBe("http://127.0.0.1:4010/2/users/by/username/me");
  });

  it("takes X_TIMEOUT_MS only as a positive whole number of milliseconds", () => {
    expect(upstreamTimeoutMs(undefined, 8_000)).toBe(8_000);
    expect(upstreamTimeoutMs("", 8_000)).toBe(8_000);
    expect(upstreamTimeoutMs("0", 8_000)).toBe(8_000);
    expect(upstreamTimeoutMs("1.5", 8_000)).toBe(8_000);
    expect(upstreamTimeoutMs("soon", 8_000)).toBe(8_000);
    expect(upstreamTimeoutMs("700", 8_000)).toBe(700);
  });
});
