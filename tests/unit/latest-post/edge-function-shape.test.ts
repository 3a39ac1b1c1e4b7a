// The edge function's shaping of the X API's answers into what the site shows (its other parts: edge-function.test.ts).
import { describe, expect, it } from "vitest";
import {
  type Shaped,
  isTextBody,
  shapeTimeline,
  shapeUserLookup,
} from "../../../supabase/functions/get-latest-tweet/shape";
import { NOW, NOW_SECONDS, answer, expectFailure, ok, timeline } from "../../support/x-answers";

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
