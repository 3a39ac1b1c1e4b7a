// What the hostile-input tests (tests/integration/abuse-*.test.ts) share: requests, and what every answer must carry.
import { expect } from "vitest";

export const DEEP_PATH = `/${"a/".repeat(7_000)}`;
/** A line of a stack trace: the log must never hold one for a visitor's mistake. */
export const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

/** A sign-up post as a browser without JavaScript sends it, with these headers; the redirect is not followed. */
export const post = (url: string, headers: Record<string, string>, email = "visitor@example.com") =>
  fetch(url, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    redirect: "manual",
  });

/** The headers every answer carries, a refusal's too. */
export function expectSecurityHeaders(headers: Headers | Record<string, string>) {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  expect(get("x-content-type-options")).toBe("nosniff");
  expect(get("content-security-policy")).toContain("default-src 'none'");
  expect(get("referrer-policy")).toBe("strict-origin-when-cross-origin");
}

/** A sign-up form's body. */
export const body = (email: string) => new URLSearchParams({ email, website: "" });
