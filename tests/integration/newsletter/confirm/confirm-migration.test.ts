// The confirmation migration on real Postgres (PGlite, with pgcrypto as Supabase has it), applied after the earlier
// ones to a table that already has rows, and checked as Supabase's anon role: the anon key alone can neither read an
// address nor confirm one without the mailed token.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, failureOf, freshSupabaseDatabase, migrate } from "../../../support/pglite-migrations";

const MIGRATIONS = [
  "20250925000000_newsletter_subscribers.sql",
  "20261123000000_newsletter_unsubscribe.sql",
  "20261124000000_newsletter_unsubscribe_answer.sql",
];
const CONFIRMATION = "20261124100000_newsletter_confirmation.sql";
const KEY = "k".repeat(40);

let db: PGlite;

const asAnon = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, "anon", fn);

const stateOf = async (email: string) =>
  (await db.query<{ state: string }>("select state from public.newsletter_subscribers where email = $1", [email]))
    .rows[0]?.state;

const signUp = (email: string) =>
  asAnon(async (tx) => {
    const result = await tx.query<{ answer: string }>(
      "select public.newsletter_sign_up($1, '/', 'v1', 'Get Updates on My Journey') as answer",
      [email],
    );
    return result.rows[0]!.answer;
  });

/** What the server does: a token, its hash, and the signed call (signed with `key`). */
async function issue(email: string, key = KEY, issuedAt = Date.now()) {
  const token = randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(token).digest("hex");
  const signature = createHmac("sha256", key).update(`${email}\n${hash}\n${issuedAt}`).digest("hex");
  const answer = await asAnon(async (tx) => {
    const result = await tx.query<{ answer: string }>(
      "select public.newsletter_issue_confirm_token($1, $2, $3, $4) as answer",
      [email, hash, issuedAt, signature],
    );
    return result.rows[0]!.answer;
  });
  return { token, hash, answer };
}

const confirm = (token: string) =>
  asAnon(
    async (tx) => (await tx.query<{ ok: boolean }>("select public.newsletter_confirm($1) as ok", [token])).rows[0]!.ok,
  );

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...MIGRATIONS);
  await db.exec("insert into public.newsletter_subscribers (email) values ('before@example.com')");
  // A re-run must not fail.
  await migrate(db, CONFIRMATION, CONFIRMATION);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the confirmation migration", () => {
  it("keeps readers from before confirmed, and direct sign-ups confirmed until a signing key is stored", async () => {
    expect(await stateOf("before@example.com")).toBe("confirmed");
    await asAnon((tx) => tx.exec("insert into public.newsletter_subscribers (email) values ('direct@example.com')"));
    expect(await stateOf("direct@example.com")).toBe("confirmed");
    expect((await failureOf(signUp("early@example.com"))).message).toMatch(/not configured/);
  });

  it("with a signing key, stores sign-ups pending, even a direct insert by the anon role", async () => {
    await db.query("insert into newsletter_private.settings (name, value) values ('confirm_signing_key', $1)", [KEY]);
    expect(await signUp("reader@example.com")).toBe("subscribed");
    expect(await stateOf("reader@example.com")).toBe("pending");
    expect(await signUp("READER@example.com")).toBe("duplicate");
    await asAnon((tx) => tx.exec("insert into public.newsletter_subscribers (email) values ('sneaky@example.com')"));
    expect(await stateOf("sneaky@example.com")).toBe("pending");
    const consent = await db.query(
      "select consent_page, consent_version from public.newsletter_subscribers where email = 'reader@example.com'",
    );
    expect(consent.rows[0]).toEqual({ consent_page: "/", consent_version: "v1" });
    const wording = await db.query("select wording from public.newsletter_consent_wordings where version = 'v1'");
    expect(wording.rows).toEqual([{ wording: "Get Updates on My Journey" }]);
  });

  it("lets the anon role read nothing and change no state by itself", async () => {
    for (const sql of [
      "select email from public.newsletter_subscribers",
      "select * from public.newsletter_consent_wordings",
      "select * from newsletter_private.settings",
      "update public.newsletter_subscribers set state = 'confirmed'",
      "update public.newsletter_subscribers set confirm_token_hash = 'x'",
    ]) {
      expect((await failureOf(asAnon((tx) => tx.query(sql)))).code).toBe("42501");
    }
    expect(
      (
        await failureOf(
          asAnon((tx) =>
            tx.exec("insert into public.newsletter_subscribers (email, state) values ('x@example.com', 'confirmed')"),
          ),
        )
      ).code,
    ).toBe("42501");
  });

  it("attaches a token only with the server's signature, and confirms only with the mailed token", async () => {
    expect((await issue("reader@example.com", "a guessed key of some length")).answer).toBe("refused");
    expect((await issue("reader@example.com", KEY, Date.now() - 11 * 60_000)).answer).toBe("refused");
    const { token, hash, answer } = await issue("reader@example.com");
    expect(answer).toBe("issued");
    // Knowing the hash (it is not readable, but suppose) does not confirm: the function takes the token.
    expect(await confirm(hash)).toBe(false);
    expect(await confirm(randomBytes(32).toString("base64url"))).toBe(false);
    expect(await stateOf("reader@example.com")).toBe("pending");
    expect(await confirm(token)).toBe(true);
    expect(await stateOf("reader@example.com")).toBe("confirmed");
    expect(await confirm(token)).toBe(false);
    expect((await issue("reader@example.com")).answer).toBe("confirmed");
    expect((await issue("nobody@example.com")).answer).toBe("gone");
  });

  it("mails a pending reader again after 24 hours, removes them after 7 days, and the token dies after 7 days", async () => {
    expect(await signUp("slow@example.com")).toBe("subscribed");
    const { token } = await issue("slow@example.com");
    await db.exec(
      "update public.newsletter_subscribers set confirm_requested_at = now() - interval '25 hours', " +
        "confirm_token_at = now() - interval '8 days' where email = 'slow@example.com'",
    );
    expect(await signUp("slow@example.com")).toBe("resend");
    expect(await signUp("slow@example.com")).toBe("duplicate");
    expect(await confirm(token)).toBe(false);
    await db.exec(
      "update public.newsletter_subscribers set confirm_requested_at = now() - interval '7 days 1 minute' where email = 'slow@example.com'",
    );
    expect(await signUp("slow@example.com")).toBe("subscribed");
  });

  it("answers the owner's query for one reader's record (supabase/queries/reader-record.sql)", async () => {
    const query = await readFile(new URL("../../../../supabase/queries/reader-record.sql", import.meta.url), "utf8");
    // The owner types the address in place of the example; here it goes in as a parameter.
    const where = "lower('reader@example.com')";
    expect(query).toContain(where);
    const recordOf = async (address: string) =>
      (await db.query<Record<string, unknown>>(query.replace(where, "lower($1)"), [address])).rows;
    expect(await signUp("record@example.com")).toBe("subscribed");
    const { token } = await issue("record@example.com");
    expect(await confirm(token)).toBe(true);
    const [record, ...more] = await recordOf("Record@Example.com");
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      email: "record@example.com",
      state: "confirmed",
      from_page: "/",
      wording_version: "v1",
      wording_agreed_to: "Get Updates on My Journey",
    });
    expect(record!.signed_up_at).toBeInstanceOf(Date);
    expect(record!.confirmed_at).toBeInstanceOf(Date);
    expect(record!.last_confirmation_mail_asked_for).toBeInstanceOf(Date);
    // A reader from before confirmation by mail: confirmed, with no confirmation time and no recorded wording.
    expect(await recordOf("before@example.com")).toMatchObject([
      { state: "confirmed", confirmed_at: null, from_page: null, wording_agreed_to: null },
    ]);
    expect(await recordOf("nobody@example.com")).toEqual([]);
  });

  it("lets a pending reader unsubscribe by their token", async () => {
    const { rows } = await db.query<{ token: string }>(
      "select unsubscribe_token::text as token from public.newsletter_subscribers where email = 'sneaky@example.com'",
    );
    const removed = await asAnon(
      async (tx) =>
        (await tx.query<{ ok: boolean }>("select public.unsubscribe_newsletter($1) as ok", [rows[0]!.token])).rows[0]!
          .ok,
    );
    expect(removed).toBe(true);
    expect(await stateOf("sneaky@example.com")).toBeUndefined();
  });
});
