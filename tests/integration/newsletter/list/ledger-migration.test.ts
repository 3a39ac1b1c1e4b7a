// The ledger migration on real Postgres (PGlite, with pgcrypto as Supabase has it), after every earlier one, called as
// Supabase's roles: the same rules as the embedded list (app/newsletter/list/ledger.ts), by mailbox, with the same
// folding and the same keyed hash as app/newsletter/list/mailbox-hash.server.ts.
import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import {
  asRole,
  freshSupabaseDatabase,
  migrate,
  sendReaders,
  storeSigningKey,
} from "../../../support/pglite-migrations";
import { answerOf, signedCalls } from "../../../support/pglite-signed-calls";

const EARLIER = [
  "20250925000000_newsletter_subscribers.sql",
  "20261123000000_newsletter_unsubscribe.sql",
  "20261124000000_newsletter_unsubscribe_answer.sql",
  "20261124100000_newsletter_confirmation.sql",
  "20261127000000_newsletter_suppression.sql",
  "20261127000100_newsletter_suppression_sign_up.sql",
  "20261127000500_newsletter_import.sql",
  "20261127120000_newsletter_previous_confirm_token.sql",
];
const LEDGER = "20261128000000_newsletter_ledger.sql";
const KEY = "k".repeat(40);
const AT = "2026-11-27T10:00:00.000Z";

let db: PGlite;

const answer = (role: string, sql: string, params: unknown[] = []) => answerOf(db, role, sql, params);
const calls = signedCalls(() => db, KEY);
const suppress = (email: string, reason: "bounced" | "complained") =>
  calls.suppress(email, reason, "relay's words", Date.parse(AT));
const unsuppress = calls.unsuppress;
const importReader = (email: string, reason: string | null) =>
  answer("service_role", "public.newsletter_import_reader($1, $2, $3, $4, $5, $6)", [
    email,
    null,
    AT,
    `imported ${AT} from export.csv (Mailchimp); sign-up date not in the file`,
    reason,
    reason ? "said so" : null,
  ]);
const tokenOf = async (email: string) =>
  (
    await db.query<{ token: string }>(
      "select unsubscribe_token as token from public.newsletter_subscribers where lower(email) = lower($1)",
      [email],
    )
  ).rows[0]?.token;
const unsubscribe = async (email: string) =>
  answer("anon", "public.unsubscribe_newsletter($1)", [await tokenOf(email)]);

/** The sign-up, the mailed token and the press of 'Confirm', as the server makes them with the anon key. */
async function signUpAndConfirm(email: string) {
  const signedUp = await answer("anon", "public.newsletter_sign_up($1, $2, $3, $4)", [email, "/", "v1", "words"]);
  const token = `token-of-${email}-${Date.now()}`;
  const hash = createHash("sha256").update(token).digest("hex");
  const issuedAt = Date.now();
  const issued = await answer("anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", [
    email,
    hash,
    issuedAt,
    issueSignature(KEY, email, hash, issuedAt),
  ]);
  const confirmed = await answer("anon", "public.newsletter_confirm_reader($1)", [token]);
  return [signedUp, issued, confirmed];
}

const tombstones = async () =>
  (await db.query<{ mailbox: string; reason: string }>("select mailbox, reason from newsletter_private.tombstones"))
    .rows;

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...EARLIER);
  await storeSigningKey(db, KEY);
  // A list from before the ledger: a reader who complained, and one who did not.
  await db.exec(
    "insert into public.newsletter_subscribers (email, state, suppressed_reason, suppressed_at) values " +
      "('old-complaint@example.org', 'confirmed', 'complained', now()), ('old@example.org', 'confirmed', null, null)",
  );
  // A re-run must not fail.
  await migrate(db, LEDGER, LEDGER);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the ledger migration", () => {
  it("folds a mailbox and hashes it exactly as the server does, with a key of its own that no API role reads", async () => {
    const key = (
      await db.query<{ value: string }>("select value from newsletter_private.settings where name = 'ledger_key'")
    ).rows[0]!.value;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const samples = [
      "Ada+news@Example.com",
      "a.d.a@googlemail.com",
      "S.O.M.E+x@GMAIL.com.",
      "...@gmail.com",
      "+tag@example.org",
      "no-at-sign",
      "@example.org",
      "a@b@example.org",
      "  padded@example.org ",
    ];
    for (const email of samples) {
      expect(await answer("postgres", "newsletter_private.mailbox_key($1)", [email])).toBe(mailboxKey(email));
      expect(await answer("postgres", "newsletter_private.mailbox_hash($1)", [email])).toBe(mailboxHash(key, email));
    }
    for (const role of ["anon", "authenticated"]) {
      await expect(asRole(db, role, (tx) => tx.query("select * from newsletter_private.tombstones"))).rejects.toThrow();
    }
  });

  it("tombstones the mailboxes of readers suppressed before it", async () => {
    expect(await tombstones()).toEqual([
      {
        mailbox: await answer("postgres", "newsletter_private.mailbox_hash('old-complaint@example.org')"),
        reason: "complained",
      },
    ]);
    expect(await unsuppress("old-complaint@example.org")).toBe("kept-complained");
  });

  it("a complaint keeps every spelling of the inbox from mail, and never holds the address", async () => {
    for (const email of ["someone@gmail.com", "some.one+news@googlemail.com", "other@gmail.com"]) {
      await importReader(email, null);
    }
    expect(await suppress("someone@gmail.com", "complained")).toBe("suppressed");
    const readers = await sendReaders(db);
    expect(readers).toContain("other@gmail.com");
    expect(readers).not.toContain("some.one+news@googlemail.com");
    expect(JSON.stringify(await tombstones())).not.toMatch(/someone|gmail/);
    expect(await unsuppress("some.one+news@googlemail.com")).toBe("kept-complained");
  });

  it("an unsubscribe is remembered: no import revives it; the person's own confirmed sign-up does", async () => {
    expect(await importReader("ivan@example.com", null)).toBe("added");
    expect(await unsubscribe("ivan@example.com")).toBe(true);
    expect(await tokenOf("ivan@example.com")).toBeUndefined();
    expect(await importReader("ivan@example.com", null)).toBe("exists");
    expect(await importReader("Ivan+old@example.com", null)).toBe("exists");
    expect(await sendReaders(db)).not.toContain("ivan@example.com");
    expect(await unsuppress("ivan@example.com")).toBe("kept-unsubscribed");
    expect(await signUpAndConfirm("ivan@example.com")).toEqual(["subscribed", "issued", "confirmed"]);
    expect(await sendReaders(db)).toContain("ivan@example.com");
  });

  it("a reader suppressed by a relay who signs up again gets a confirmation, and is a reader once they confirm", async () => {
    await importReader("full@example.net", null);
    expect(await suppress("full@example.net", "bounced")).toBe("suppressed");
    expect(await sendReaders(db)).not.toContain("full@example.net");
    expect(await signUpAndConfirm("full@example.net")).toEqual(["subscribed", "issued", "confirmed"]);
    expect(await sendReaders(db)).toContain("full@example.net");
  });

  it("an import's word that a reader left counts whatever the order of the files, and is the owner's to lift", async () => {
    expect(await importReader("karen@example.com", null)).toBe("added");
    expect(await importReader("karen@example.com", "unsubscribed")).toBe("suppressed");
    expect(await importReader("karen@example.com", "unsubscribed")).toBe("exists");
    expect(await importReader("karen@example.com", null)).toBe("exists");
    expect(await sendReaders(db)).not.toContain("karen@example.com");
    expect(await unsuppress("karen@example.com")).toBe("lifted");
    expect(await sendReaders(db)).toContain("karen@example.com");
  });

  it("never lets an import's word outrank a reader's own sign-up here", async () => {
    expect(await signUpAndConfirm("joan@example.net")).toEqual(["subscribed", "issued", "confirmed"]);
    expect(await importReader("joan@example.net", "unsubscribed")).toBe("exists");
    expect(await sendReaders(db)).toContain("joan@example.net");
  });

  it("unsuppress lifts a bounce for every spelling of the mailbox", async () => {
    await importReader("Bounce@example.org", null);
    await importReader("bounce+b@example.org", null);
    expect(await suppress("bounce@example.org", "bounced")).toBe("suppressed");
    expect(await sendReaders(db)).not.toContain("bounce+b@example.org");
    expect(await unsuppress("bounce@example.org")).toBe("lifted");
    expect(await sendReaders(db)).toEqual(expect.arrayContaining(["Bounce@example.org", "bounce+b@example.org"]));
    expect(await unsuppress("bounce@example.org")).toBe("not-suppressed");
  });
});
