// The X API's answers as the edge function's unit tests give them to its pure parts, and the check of a failure.
import { expect } from "vitest";
import { type Shaped, type Upstream, isTextBody } from "../../supabase/functions/get-latest-tweet/shape";

export const NOW = Date.UTC(2025, 9, 1, 12, 0, 0);
export const NOW_SECONDS = NOW / 1000;

export function ok(payload: unknown): Upstream {
  return { kind: "response", status: 200, body: JSON.stringify(payload) };
}

export function answer(status: number, body: string, rateLimitReset?: string | null): Upstream {
  return { kind: "response", status, body, rateLimitReset };
}

export const timeline = (...texts: unknown[]) => ({
  data: texts.map((text, index) => ({
    id: String(1000 - index),
    edit_history_tweet_ids: [String(1000 - index)],
    text,
  })),
  meta: { result_count: texts.length, newest_id: "1000", oldest_id: String(1001 - texts.length) },
});

export function expectFailure(shaped: Shaped, status: number, message: string | RegExp): void {
  expect(shaped.status).toBe(status);
  expect(Object.keys(shaped.body)).toEqual(["error"]);
  expect(isTextBody(shaped.body)).toBe(false);
  if (typeof message === "string") expect(shaped.body).toEqual({ error: message });
  else expect((shaped.body as { error: string }).error).toMatch(message);
  expect(shaped.headers["Cache-Control"]).toBe("no-store");
}
