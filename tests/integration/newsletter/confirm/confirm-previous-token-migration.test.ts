// The migration that keeps the previous confirmation token, on real Postgres (PGlite with pgcrypto), applied
// over every earlier one (suppression included) to a list with a pending reader whose link is already out: that link
// still works after a second mail, as the embedded list's does, only for its own 7 days, and never for a suppressed
// reader.
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, freshSupabaseDatabase, migrate, storeSigningKey } from "../../../support/pglite-migrations";

const BEFORE = [
  "20250925000000_newsletter_subscribers.sql",
  "20261123000000_newsletter_unsubscribe.sql",
  "20261124000000_newsletter_unsubscribe_answer.sql",
  "20261124100000_newsletter_confirmation.sql",
  "20261127000000_newsletter_suppression.sql",
  "20261127000100_newsletter_suppression_sign_up.sql",
];
const PREVIOUS_TOKEN = "20261127120000_newsletter_previous_confirm_token.sql";
const KEY = "k".repeat(40);

let db: PGlite;

const asAnon = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, "anon", fn);

const rpc = async (sql: string, args: unknown[]) =>
  asAnon(async (tx) => (await tx.query<{ answer: unknown }>(sql, args)).rows[0]!.answer);

const signUp = (email: string) => rpc("select public.newsletter_sign_up($1, '/', 'v1', 'Wording') as answer", [email]);

/** What the server does when it composes a mail: a token (`again`: the same mail's, on a retry), its hash, the call. */
async function issue(email: string, again?: string) {
  const token = again ?? randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(token).digest("hex");
  const at = Date.now();
  const signature = createHmac("sha256", KEY).update(`${email}\n${hash}\n${at}`).digest("hex");
  const answer = await rpc("select public.newsletter_issue_confirm_token($1, $2, $3, $4) as answer", [
    email,
    hash,
    at,
    signature,
  ]);
  expect(answer).toBe("issued");
  return token;
}

const confirm = (token: string) => rpc("select public.newsletter_confirm($1) as answer", [token]);
const confirmReader = (token: string) => rpc("select public.newsletter_confirm_reader($1) as answer", [token]);

const stateOf = async (email: string) =>
  (await db.query<{ state: string }>("select state from public.newsletter_subscribers where email = $1", [email]))
    .rows[0]?.state;

let mailedBeforeUpgrade: string;

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...BEFORE);
  await storeSigningKey(db, KEY);
  expect(await signUp("upgraded@example.com")).toBe("subscribed");
  mailedBeforeUpgrade = await issue("upgraded@example.com");
  // A re-run must not fail.
  await migrate(db, PREVIOUS_TOKEN, PREVIOUS_TOKEN);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the previous confirmation token", () => {
  it("keeps a link mailed before the upgrade working after a second mail", async () => {
    await issue("upgraded@example.com");
    expect(await confirm(mailedBeforeUpgrade)).toBe(true);
    expect(await stateOf("upgraded@example.com")).toBe("confirmed");
  });

  it("accepts the first and the second mail's link, not the one before them, and each only once", async () => {
    expect(await signUp("twice@example.com")).toBe("subscribed");
    const first = await issue("twice@example.com");
    const second = await issue("twice@example.com");
    expect(await signUp("thrice@example.com")).toBe("subscribed");
    const oldest = await issue("thrice@example.com");
    await issue("thrice@example.com");
    const latest = await issue("thrice@example.com");
    expect(await confirm(oldest)).toBe(false);
    expect(await confirm(first)).toBe(true);
    expect(await confirm(second)).toBe(false);
    expect(await stateOf("twice@example.com")).toBe("confirmed");
    expect(await confirm(latest)).toBe(true);
  });

  it("keeps the first mail's link when the second mail is retried with the same token", async () => {
    expect(await signUp("retried@example.com")).toBe("subscribed");
    const first = await issue("retried@example.com");
    const second = await issue("retried@example.com");
    await issue("retried@example.com", second);
    await issue("retried@example.com", second);
    expect(await confirm(first)).toBe(true);
  });

  it("says 'already' for either link once confirmed, and confirms no suppressed reader by either", async () => {
    expect(await signUp("both@example.com")).toBe("subscribed");
    const first = await issue("both@example.com");
    const second = await issue("both@example.com");
    expect(await confirmReader(second)).toBe("confirmed");
    expect(await confirmReader(first)).toBe("already");
    expect(await confirmReader(second)).toBe("already");

    expect(await signUp("bounced@example.com")).toBe("subscribed");
    const before = await issue("bounced@example.com");
    await issue("bounced@example.com");
    await db.exec(
      "update public.newsletter_subscribers set suppressed_reason = 'bounced', suppressed_at = now() " +
        "where email = 'bounced@example.com'",
    );
    expect(await confirmReader(before)).toBe("unknown");
    expect(await stateOf("bounced@example.com")).toBe("pending");
  });

  it("lets the previous link die with its own 7 days", async () => {
    expect(await signUp("late@example.com")).toBe("subscribed");
    const first = await issue("late@example.com");
    await issue("late@example.com");
    await db.exec(
      "update public.newsletter_subscribers set previous_confirm_token_at = now() - interval '7 days 1 minute' " +
        "where email = 'late@example.com'",
    );
    expect(await confirm(first)).toBe(false);
    expect(await stateOf("late@example.com")).toBe("pending");
  });

  it("gives the anon role no way to read or set the previous hash", async () => {
    for (const sql of [
      "select previous_confirm_token_hash from public.newsletter_subscribers",
      "update public.newsletter_subscribers set previous_confirm_token_hash = 'x'",
    ]) {
      const failure = await asAnon((tx) => tx.query(sql)).then(
        () => null,
        (error: { code?: string }) => error,
      );
      expect(failure?.code).toBe("42501");
    }
  });
});
