import { describe, expect, it } from "vitest";
import { maskEmail } from "~/utils/mask-email.server";
import { SQLITE_CONSTRAINT_UNIQUE, sqliteOutcome } from "~/newsletter/list/sqlite/sqlite-list.server";
import { supabaseOutcome, withoutMailAnswer } from "~/newsletter/list/supabase/anon-writes.server";

describe("withoutMailAnswer (the sign-up function's call while mail is off)", () => {
  it.each(["subscribed", "pending", "duplicate"] as const)("is '%s' for the function's own 200 answer", (word) => {
    expect(withoutMailAnswer({ data: word, error: null, status: 200 })).toBe(word);
  });

  it("is 'missing' for PostgREST's PGRST202 (no such function in the schema cache, 404)", () => {
    const error = { code: "PGRST202", message: "Could not find the function public.x in the schema cache" };
    expect(withoutMailAnswer({ data: null, error, status: 404 })).toBe("missing");
  });

  it.each([
    ["an empty 200 (null)", { data: null, error: null, status: 200 }],
    ["a 200 with an empty array", { data: [], error: null, status: 200 }],
    ["a 200 with another word", { data: "resend", error: null, status: 200 }],
    ["a 200 with the word in an array", { data: ["subscribed"], error: null, status: 200 }],
    ["a 201 (an insert's answer, not a function's)", { data: "subscribed", error: null, status: 201 }],
    ["a 204", { data: null, error: null, status: 204 }],
    ["PGRST202 with another status", { data: null, error: { code: "PGRST202", message: "?" }, status: 200 }],
    ["a unique violation (the function answers it itself)", { data: null, error: { code: "23505" }, status: 409 }],
    ["a check violation", { data: null, error: { code: "23514", message: "check" }, status: 400 }],
    ["a refused call", { data: null, error: { code: "42501", message: "permission denied" }, status: 401 }],
    ["a non-JSON page (no code)", { data: null, error: { message: "<html>portal</html>" }, status: 200 }],
    ["a network failure", { data: null, error: { code: "", message: "TypeError: fetch failed" }, status: 0 }],
  ])("is 'failed' for %s", (_label, result) => {
    expect(withoutMailAnswer(result)).toBe("failed");
  });
});

describe("supabaseOutcome (the plain insert, for a database without the sign-up function)", () => {
  it("is 'subscribed' for PostgREST's 201 with an empty body", () => {
    expect(supabaseOutcome({ error: null, status: 201 })).toBe("subscribed");
  });

  it("is 'duplicate' for a unique violation (23505)", () => {
    const error = { code: "23505", message: 'duplicate key value violates unique constraint "x"' };
    expect(supabaseOutcome({ error, status: 409 })).toBe("duplicate");
  });

  it.each([
    ["another Postgres error", { error: { code: "23514", message: "check violation" }, status: 400 }],
    ["a row-level security refusal", { error: { code: "42501", message: "permission denied" }, status: 401 }],
    ["a server error", { error: { code: "XX000", message: "internal error" }, status: 500 }],
    ["a non-JSON body (no code)", { error: { message: "<html>502 Bad Gateway</html>" }, status: 502 }],
    [
      "a network failure (status 0, empty code)",
      { error: { code: "", message: "TypeError: fetch failed" }, status: 0 },
    ],
    ["an error status without an error body", { error: null, status: 500 }],
    ["23505 as a number rather than PostgREST's string", { error: { code: 23505, message: "?" }, status: 409 }],
  ])("is 'failed' for %s", (_label, result) => {
    expect(supabaseOutcome(result)).toBe("failed");
  });
});

describe("sqliteOutcome", () => {
  it("is 'duplicate' for a unique index violation (errcode 2067)", () => {
    expect(SQLITE_CONSTRAINT_UNIQUE).toBe(2067);
    expect(sqliteOutcome(Object.assign(new Error("UNIQUE constraint failed"), { errcode: 2067 }))).toBe("duplicate");
  });

  it.each([
    ["a not-null violation (1299)", Object.assign(new Error("NOT NULL constraint failed"), { errcode: 1299 })],
    ["a read-only database (8)", Object.assign(new Error("attempt to write a readonly database"), { errcode: 8 })],
    ["a busy database (5)", Object.assign(new Error("database is locked"), { errcode: 5 })],
    ["a closed database (no errcode)", new Error("database is not open")],
    ["something that is not an error", "boom"],
    ["null", null],
  ])("is 'failed' for %s", (_label, error) => {
    expect(sqliteOutcome(error)).toBe("failed");
  });
});

describe("maskEmail", () => {
  it("keeps the first character and the domain only", () => {
    expect(maskEmail("ada.lovelace@example.com")).toBe("a***@example.com");
  });

  it("never returns the local part of odd input", () => {
    expect(maskEmail("no-at-sign")).toBe("***");
    expect(maskEmail("@example.com")).toBe("***");
  });
});
