import { describe, expect, it } from "vitest";
import {
  type CachedText,
  type Shaped,
  type Upstream,
  apiBase,
  decodeEntities,
  FRESH_FOR_MS,
  fromCache,
  isTextBody,
  latestText,
  parseUserRef,
  readConfig,
  retryAfterSeconds,
  shapeTimeline,
  shapeUserLookup,
  STALE_FOR_MS,
  success,
  timelineUrl,
  upstreamTimeoutMs,
  userLookupUrl,
  withStaleFallback,
  X_API_BASE,
} from "../../supabase/functions/get-latest-tweet/shape";

const NOW = Date.UTC(2025, 9, 1, 12, 0, 0);
const NOW_SECONDS = NOW / 1000;

function ok(payload: unknown): Upstream {
  return { kind: "response", status: 200, body: JSON.stringify(payload) };
}

function answer(status: number, body: string, rateLimitReset?: string | null): Upstream {
  return { kind: "response", status, body, rateLimitReset };
}

const timeline = (...texts: unknown[]) => ({
  data: texts.map((text, index) => ({
    id: String(1000 - index),
    edit_history_tweet_ids: [String(1000 - index)],
    text,
  })),
  meta: { result_count: texts.length, newest_id: "1000", oldest_id: String(1001 - texts.length) },
});

function expectFailure(shaped: Shaped, status: number, message: string | RegExp): void {
  expect(shaped.status).toBe(status);
  expect(Object.keys(shaped.body)).toEqual(["error"]);
  expect(isTextBody(shaped.body)).toBe(false);
  if (typeof message === "string") expect(shaped.body).toEqual({ error: message });
  else expect((shaped.body as { error: string }).error).toMatch(message);
  expect(shaped.headers["Cache-Control"]).toBe("no-store");
}

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

describe("shapeTimeline", () => {
  it("answers 200 {text} with a short public cache", () => {
    expect(shapeTimeline(ok(timeline("Hello world", "older")), NOW)).toEqual({
      status: 200,
      body: { text: "Hello world" },
      headers: { "Cache-Control": "public, max-age=300" },
    });
  });

  it("answers 404 when there are no recent original posts", () => {
    expectFailure(shapeTimeline(ok({ meta: { result_count: 0 } }), NOW), 404, "No recent posts");
    expectFailure(shapeTimeline(ok(timeline("", " ")), NOW), 404, "No recent posts");
  });

  it("answers 502 with X's problem when a 200 carries only errors", () => {
    const payload = {
      errors: [
        {
          value: "1",
          detail: "Could not find user with id: [1].",
          title: "Not Found Error",
          resource_type: "user",
          parameter: "id",
          resource_id: "1",
          type: "https://api.twitter.com/2/problems/resource-not-found",
        },
      ],
    };
    expectFailure(
      shapeTimeline(ok(payload), NOW),
      502,
      "X API reported: Not Found Error: Could not find user with id: [1].",
    );
  });

  it("still uses the data when a 200 carries errors beside it", () => {
    const payload = { ...timeline("partial but fine"), errors: [{ title: "Partial Error" }] };
    expect(shapeTimeline(ok(payload), NOW).body).toEqual({ text: "partial but fine" });
  });

  it("answers 502 when a 200 body is not JSON", () => {
    expectFailure(
      shapeTimeline(answer(200, "<html>maintenance</html>"), NOW),
      502,
      "X API answered with something that is not JSON",
    );
    expectFailure(shapeTimeline(answer(200, ""), NOW), 502, "X API answered with something that is not JSON");
  });

  it.each([["[]"], ['"text"'], ["null"], ["42"]])("answers 502 when a 200 body has the wrong shape: %s", (body) => {
    expectFailure(shapeTimeline(answer(200, body), NOW), 502, "X API answered with an unexpected shape");
  });

  describe("rate limiting (429)", () => {
    const tooMany = JSON.stringify({
      title: "Too Many Requests",
      detail: "Too Many Requests",
      type: "about:blank",
      status: 429,
    });

    it("answers 503 with Retry-After until the window reopens", () => {
      const shaped = shapeTimeline(answer(429, tooMany, String(NOW_SECONDS + 120)), NOW);
      expectFailure(shaped, 503, "Rate limited by the X API");
      expect(shaped.headers["Retry-After"]).toBe("120");
    });

    it("rounds a partial second up and never says less than one second", () => {
      expect(shapeTimeline(answer(429, tooMany, String(NOW_SECONDS + 0.2)), NOW).headers["Retry-After"]).toBe("1");
      expect(shapeTimeline(answer(429, tooMany, String(NOW_SECONDS - 30)), NOW).headers["Retry-After"]).toBe("1");
    });

    it("caps the wait at one 15-minute window", () => {
      expect(shapeTimeline(answer(429, tooMany, String(NOW_SECONDS + 86_400)), NOW).headers["Retry-After"]).toBe("900");
    });

    it.each([null, undefined, "", "soon"])("falls back to 60 s when the reset header is %j", (reset) => {
      expect(shapeTimeline(answer(429, "not json", reset), NOW).headers["Retry-After"]).toBe("60");
    });
  });

  it.each([401, 403])("answers 502 when X refuses the credentials (%i)", (status) => {
    const body = JSON.stringify({ title: "Unauthorized", type: "about:blank", status, detail: "Unauthorized" });
    expectFailure(
      shapeTimeline(answer(status, body), NOW),
      502,
      `X API refused the credentials (${status}: Unauthorized)`,
    );
    expectFailure(shapeTimeline(answer(status, ""), NOW), 502, `X API refused the credentials (${status})`);
  });

  it("answers 502 for any other upstream status, with X's problem when it gave one", () => {
    const problem = JSON.stringify({
      title: "Invalid Request",
      detail: "One or more parameters to your request was invalid.",
    });
    expectFailure(
      shapeTimeline(answer(400, problem), NOW),
      502,
      "X API answered 400: Invalid Request: One or more parameters to your request was invalid.",
    );
    expectFailure(shapeTimeline(answer(503, "<html>Service Unavailable</html>"), NOW), 502, "X API answered 503");
    expectFailure(shapeTimeline(answer(302, ""), NOW), 502, "X API answered 302");
  });

  it("answers 504 on timeout and 502 when X cannot be reached", () => {
    expectFailure(shapeTimeline({ kind: "timeout" }, NOW), 504, "X API did not answer in time");
    expectFailure(shapeTimeline({ kind: "network-error" }, NOW), 502, "Could not reach the X API");
  });

  it("never answers 2xx without non-empty text, nor an error with 2xx, whatever X says", () => {
    const bodies = ["", "not json", "null", "{}", JSON.stringify(timeline("hi")), JSON.stringify(timeline(""))];
    for (let status = 100; status <= 599; status += 1) {
      for (const body of bodies) {
        const shaped = shapeTimeline(answer(status, body, String(NOW_SECONDS + 5)), NOW);
        const is2xx = shaped.status >= 200 && shaped.status <= 299;
        expect(is2xx, `${status} ${body}`).toBe(isTextBody(shaped.body));
        if (isTextBody(shaped.body)) expect(shaped.body.text).not.toBe("");
        else expect(shaped.body.error).not.toBe("");
      }
    }
  });
});

describe("shapeUserLookup", () => {
  it("returns the numeric id", () => {
    expect(shapeUserLookup(ok({ data: { id: "2244994945", name: "X Dev", username: "xdevelopers" } }), NOW)).toEqual({
      id: "2244994945",
    });
  });

  it("reports an unknown handle", () => {
    const payload = { errors: [{ title: "Not Found Error", detail: "Could not find user with username: [nobody]." }] };
    expectFailure(
      shapeUserLookup(ok(payload), NOW) as Shaped,
      502,
      "X API reported: Not Found Error: Could not find user with username: [nobody].",
    );
  });

  it("refuses an answer without a usable id", () => {
    expectFailure(shapeUserLookup(ok({ data: { id: 42 } }), NOW) as Shaped, 502, "X API user lookup returned no id");
    expectFailure(shapeUserLookup(ok({}), NOW) as Shaped, 502, "X API user lookup returned no id");
  });

  it("shares the transport mapping with the timeline", () => {
    expectFailure(shapeUserLookup(answer(429, "", String(NOW_SECONDS + 10)), NOW) as Shaped, 503, /Rate limited/);
    expectFailure(shapeUserLookup({ kind: "timeout" }, NOW) as Shaped, 504, /in time/);
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
