// The suppression migrations on real Postgres (PGlite, with pgcrypto as Supabase has it), applied after every earlier
// one to a list that has readers, and called as Supabase's roles: the anon key alone changes nothing without the
// server's signature, the service role needs none, and a suppressed reader is out of every send and every mail.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suppressionSignature } from "~/newsletter/list/supabase/suppression.server";
import {
  asRole,
  failureOf,
  freshSupabaseDatabase,
  migrate,
  sendReaders,
  storeSigningKey,
} from "../../../support/pglite-migrations";

const EARLIER = [
  "20250925000000_newsletter_subscribers.sql",
  "20261123000000_newsletter_unsubscribe.sql",
  "20261124000000_newsletter_unsubscribe_answer.sql",
  "20261124100000_newsletter_confirmation.sql",
];
const SUPPRESSION = ["20261127000000_newsletter_suppression.sql", "20261127000100_newsletter_suppression_sign_up.sql"];
const KEY = "k".repeat(40);
const AT = Date.parse("2026-11-27T10:00:00.000Z");

let db: PGlite;

const as = <T>(role: string, fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, role, fn);

/** What the server signs: the function's name, then its arguments one a line, then the time (the SQL's message). */
const sign = (key: string, fields: string[], issuedAt: number) =>
  createHmac("sha256", key)
    .update(`${fields.join("\n")}\n${issuedAt}`)
    .digest("hex");

async function call(role: string, sql: string, params: unknown[]): Promise<unknown> {
  return as(
    role,
    async (tx) => (await tx.query<{ answer: unknown }>(`select ${sql} as answer`, params)).rows[0]!.answer,
  );
}

const suppress = (email: string, reason: string, detail: string, at = AT, key = KEY, issuedAt = Date.now()) =>
  call("anon", "public.newsletter_suppress($1, $2, $3, $4, $5, $6)", [
    email,
    reason,
    detail,
    at,
    issuedAt,
    sign(key, ["newsletter_suppress", email, reason, String(at), detail], issuedAt),
  ]);
const softBounce = (email: string, detail: string, at: number, key = KEY) => {
  const issuedAt = Date.now();
  return call("anon", "public.newsletter_soft_bounce($1, $2, $3, $4, $5)", [
    email,
    detail,
    at,
    issuedAt,
    sign(key, ["newsletter_soft_bounce", email, String(at), detail], issuedAt),
  ]);
};
const simple = (name: "newsletter_delivered" | "newsletter_unsuppress", email: string, key = KEY) => {
  const issuedAt = Date.now();
  return call("anon", `public.${name}($1, $2, $3)`, [email, issuedAt, sign(key, [name, email], issuedAt)]);
};

const rowOf = async (email: string) =>
  (
    await db.query<Record<string, unknown>>(
      "select state, suppressed_reason, suppressed_detail, suppressed_at, soft_bounces, confirm_token_hash " +
        "from public.newsletter_subscribers where lower(email) = lower($1)",
      [email],
    )
  ).rows[0];

const readers = () => sendReaders(db);

async function pendingWithToken(email: string) {
  expect(await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'Get Updates')", [email])).toBe("subscribed");
  const token = randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(token).digest("hex");
  const issuedAt = Date.now();
  const signature = createHmac("sha256", KEY).update(`${email}\n${hash}\n${issuedAt}`).digest("hex");
  const issued = await call("anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", [
    email,
    hash,
    issuedAt,
    signature,
  ]);
  return { token, issued };
}
const confirm = (token: string) => call("anon", "public.newsletter_confirm_reader($1)", [token]);

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...EARLIER);
  await db.exec(
    "insert into public.newsletter_subscribers (email) values ('a@example.org'), ('b@example.org'), " +
      "('c@example.org'), ('d@example.org')",
  );
  await storeSigningKey(db, KEY);
  // A re-run must not fail.
  await migrate(db, ...SUPPRESSION, ...SUPPRESSION);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the suppression migrations", () => {
  it("keep the anon role from reading or changing a suppression, and from the private functions", async () => {
    expect(await rowOf("a@example.org")).toMatchObject({
      state: "confirmed",
      suppressed_reason: null,
      soft_bounces: 0,
    });
    for (const sql of [
      "select suppressed_reason from public.newsletter_subscribers",
      "update public.newsletter_subscribers set suppressed_reason = null",
      "select newsletter_private.unsuppress('a@example.org')",
      "select newsletter_private.suppress('a@example.org', 'bounced', 'x', now())",
      "select newsletter_private.trusted_caller('x', 0, 'y')",
    ]) {
      expect((await failureOf(as("anon", (tx) => tx.query(sql)))).code).toBe("42501");
    }
  });

  it("refuse a call with a bad, stale or missing signature, changing nothing", async () => {
    expect(await suppress("a@example.org", "bounced", "550 gone", AT, "a guessed key of some length")).toBe("refused");
    expect(await suppress("a@example.org", "bounced", "550 gone", AT, KEY, Date.now() - 11 * 60_000)).toBe("refused");
    // Signed for another address, reason or detail: the signature covers every argument.
    const issuedAt = Date.now();
    const forB = sign(KEY, ["newsletter_suppress", "b@example.org", "bounced", String(AT), "550"], issuedAt);
    const args = ["a@example.org", "bounced", "550", AT, issuedAt, forB];
    expect(await call("anon", "public.newsletter_suppress($1, $2, $3, $4, $5, $6)", args)).toBe("refused");
    expect(await call("anon", "public.newsletter_suppress($1, 'bounced', 'x', 0, 0, null)", ["a@example.org"])).toBe(
      "refused",
    );
    expect(await simple("newsletter_unsuppress", "a@example.org", "wrong".repeat(8))).toBe("refused");
    expect(await rowOf("a@example.org")).toMatchObject({ suppressed_reason: null, soft_bounces: 0 });
    expect(await readers()).toContain("a@example.org");
  });

  it("suppress a reader with the server's signature: out of the send, once, with the relay's words", async () => {
    // The adapter signs what the database checks.
    const fields = ["newsletter_suppress", "A@Example.org", "bounced", String(AT), "550 5.1.1\nuser unknown"];
    expect(suppressionSignature(KEY, fields, AT)).toBe(sign(KEY, fields, AT));
    expect(await suppress("A@Example.org", "bounced", "550 5.1.1 user unknown")).toBe("suppressed");
    expect(await rowOf("a@example.org")).toMatchObject({
      suppressed_reason: "bounced",
      suppressed_detail: "550 5.1.1 user unknown",
      suppressed_at: new Date(AT),
    });
    expect(await suppress("a@example.org", "complained", "spam")).toBe("already");
    expect(await suppress("nobody@example.org", "bounced", "550")).toBe("unknown");
    expect((await failureOf(suppress("b@example.org", "annoyed", "x"))).message).toMatch(/bounced or complained/);
    expect(await readers()).toEqual(["b@example.org", "c@example.org", "d@example.org"]);
  });

  it("suppress with the service role key without a signature (the update command)", async () => {
    const args = ["b@example.org", "complained", "abuse report", AT, null, null];
    expect(await call("service_role", "public.newsletter_suppress($1, $2, $3, $4, $5, $6)", args)).toBe("suppressed");
    expect(await rowOf("b@example.org")).toMatchObject({ suppressed_reason: "complained" });
    expect(await readers()).toEqual(["c@example.org", "d@example.org"]);
  });

  it("count soft bounces: the third in a row suppresses, a delivery starts again, a repeat counts once", async () => {
    expect(await softBounce("c@example.org", "452 mailbox full", AT)).toBe("counted");
    expect(await softBounce("c@example.org", "452 mailbox full", AT)).toBe("already");
    expect(await softBounce("c@example.org", "452 mailbox full", AT + 1000)).toBe("counted");
    expect(await simple("newsletter_delivered", "c@example.org")).toBe("done");
    expect(await rowOf("c@example.org")).toMatchObject({ soft_bounces: 0, suppressed_reason: null });
    for (const n of [1, 2]) expect(await softBounce("c@example.org", "452 full", AT + n * 2000)).toBe("counted");
    expect(await softBounce("c@example.org", "452 still full", AT + 9000)).toBe("suppressed");
    expect(await rowOf("c@example.org")).toMatchObject({
      suppressed_reason: "bounced",
      suppressed_detail: "3 soft bounces in a row; the last: 452 still full",
    });
    expect(await softBounce("nobody@example.org", "452", AT)).toBe("unknown");
  });

  it("lift a suppression with the server's signature", async () => {
    expect(await simple("newsletter_unsuppress", "c@example.org")).toBe("lifted");
    expect(await simple("newsletter_unsuppress", "c@example.org")).toBe("not-suppressed");
    expect(await rowOf("c@example.org")).toMatchObject({ suppressed_reason: null, soft_bounces: 0 });
    expect(await readers()).toEqual(["c@example.org", "d@example.org"]);
  });

  it("answer the owner's query of suppressed readers, and lift one with its commented line", async () => {
    const file = await readFile(
      new URL("../../../../supabase/queries/suppressed-readers.sql", import.meta.url),
      "utf8",
    );
    const end = file.indexOf(";\n");
    const [list, rest] = [file.slice(0, end), file.slice(end + 2)];
    const listed = await db.query<Record<string, unknown>>(`${list};`);
    expect(listed.rows).toEqual([
      expect.objectContaining({ email: "a@example.org", why: "bounced", relay_said: "550 5.1.1 user unknown" }),
      expect.objectContaining({ email: "b@example.org", why: "complained", since: new Date(AT) }),
    ]);
    expect(listed.rows.map((row) => row.email)).not.toContain("d@example.org");
    await softBounce("d@example.org", "452 full", AT);
    expect((await db.query<Record<string, unknown>>(`${list};`)).rows).toContainEqual(
      expect.objectContaining({ email: "d@example.org", why: null, soft_bounces_in_a_row: 1 }),
    );
    // The owner removes the dashes and puts the address in.
    const lift = /^-- (select newsletter_private\.unsuppress\('reader@example\.com'\);)$/m.exec(rest)?.[1];
    expect(lift).toBeDefined();
    const lifted = await db.query<{ unsuppress: boolean }>(lift!.replace("reader@example.com", "A@example.org"));
    expect(lifted.rows[0]!.unsuppress).toBe(true);
    expect(await rowOf("a@example.org")).toMatchObject({ suppressed_reason: null });
    expect(await readers()).toContain("a@example.org");
    expect(await suppress("a@example.org", "bounced", "550 5.1.1 user unknown")).toBe("suppressed");
    expect(await simple("newsletter_delivered", "d@example.org")).toBe("done");
  });

  it("tell a suppressed reader who signs up again what any duplicate is told, and mail them nothing", async () => {
    const { token, issued } = await pendingWithToken("new@example.org");
    expect(issued).toBe("issued");
    expect(await suppress("new@example.org", "bounced", "550 no such user")).toBe("suppressed");
    // Its mailed link no longer confirms, and no new confirmation can be issued.
    expect(await confirm(token)).toBe("unknown");
    expect((await pendingWithToken("other@example.org")).issued).toBe("issued");
    await db.exec(
      "update public.newsletter_subscribers set confirm_requested_at = now() - interval '25 hours' " +
        "where email = 'new@example.org'",
    );
    expect(await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'Get Updates')", ["new@example.org"])).toBe(
      "duplicate",
    );
    expect(await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'Get Updates')", ["b@example.org"])).toBe(
      "duplicate",
    );
    const issuedAt = Date.now();
    const hash = "f".repeat(64);
    const signature = createHmac("sha256", KEY).update(`new@example.org\n${hash}\n${issuedAt}`).digest("hex");
    const args = ["new@example.org", hash, issuedAt, signature];
    expect(await call("anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", args)).toBe("gone");
    // Seven days on, the expiry keeps the suppressed row: it is what keeps the address from being mailed.
    await db.exec(
      "update public.newsletter_subscribers set confirm_requested_at = now() - interval '8 days' " +
        "where email = 'new@example.org'",
    );
    expect(await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'Get Updates')", ["new@example.org"])).toBe(
      "duplicate",
    );
    expect(await rowOf("new@example.org")).toMatchObject({ state: "pending", suppressed_reason: "bounced" });
  });

  it("answer 'already' for a reused confirm link of a confirmed reader, 'unknown' for a stranger's", async () => {
    const { token } = await pendingWithToken("twice@example.org");
    expect(await confirm(token)).toBe("confirmed");
    expect(await confirm(token)).toBe("already");
    expect(await rowOf("twice@example.org")).toMatchObject({ state: "confirmed" });
    expect(await confirm(randomBytes(32).toString("base64url"))).toBe("unknown");
    // The boolean function of before still answers, and never confirms twice.
    const again = await call("anon", "public.newsletter_confirm($1)", [token]);
    expect(again).toBe(false);
    const { token: other } = await pendingWithToken("bool@example.org");
    expect(await call("anon", "public.newsletter_confirm($1)", [other])).toBe(true);
  });
});
