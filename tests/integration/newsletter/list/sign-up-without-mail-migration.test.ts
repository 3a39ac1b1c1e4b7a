// The sign-up-without-mail migration on real Postgres (PGlite), after every earlier one, called as the server calls it
// (the anon key): a sign-up while mail is off is stored confirmed with its consent record, a mailbox that left is
// stored and never mailed, a repeat is a duplicate, and the anon key cannot use it to skip a confirmation the database
// asks for (a stored signing key makes it pending, as the visitor's plain insert is made).
import { readdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import {
  asRole,
  failureOf,
  freshSupabaseDatabase,
  migrate,
  sendReaders,
  storeSigningKey,
} from "../../../support/pglite-migrations";

const MIGRATION = "20261128300000_newsletter_sign_up_without_mail.sql";
const CONSENT = dialogConsent("/updates/2025-11-01-pricing");
let db: PGlite;

const answer = async (role: string, sql: string, params: unknown[] = []) =>
  asRole(
    db,
    role,
    async (tx) => (await tx.query<{ answer: unknown }>(`select ${sql} as answer`, params)).rows[0]!.answer,
  );
const signUp = (
  email: string,
  page: unknown = CONSENT.page,
  version: unknown = CONSENT.version,
  words: unknown = CONSENT.wording,
) => answer("anon", "public.newsletter_sign_up_without_mail($1, $2, $3, $4)", [email, page, version, words]);
const rowOf = async (email: string) =>
  (
    await db.query<Record<string, unknown>>(
      "select email, state, confirmed_at, consent_page, consent_version, confirm_requested_at, suppressed_reason " +
        "from public.newsletter_subscribers where lower(email) = lower($1)",
      [email],
    )
  ).rows[0];
const count = async (table: string) =>
  (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;

beforeAll(async () => {
  const all = readdirSync(new URL("../../../../supabase/migrations/", import.meta.url)).sort();
  db = await freshSupabaseDatabase();
  await migrate(db, ...all.filter((name) => name < MIGRATION));
}, 120_000);
afterAll(async () => {
  await db?.close();
});
afterEach(async () => {
  await db.exec(
    "truncate public.newsletter_subscribers, public.newsletter_consent_wordings, newsletter_private.tombstones; " +
      "delete from newsletter_private.settings where name = 'confirm_signing_key';",
  );
});

describe("a sign-up while mail is off, with Supabase", () => {
  it("is unknown before the migration, and the migration runs twice without harm", async () => {
    expect(await failureOf(signUp("ada@example.com"))).toMatchObject({ code: "42883" });
    await migrate(db, MIGRATION, MIGRATION);
  });

  it("stores the reader confirmed with the page, the wording's version, the wording and the time", async () => {
    const before = Date.now();
    expect(await signUp("Ada@Example.com")).toBe("subscribed");
    const row = await rowOf("ada@example.com");
    expect(row).toMatchObject({
      email: "Ada@Example.com",
      state: "confirmed",
      consent_page: "/updates/2025-11-01-pricing",
      consent_version: CONSENT.version,
      confirm_requested_at: null,
      suppressed_reason: null,
    });
    // The database's clock and this process's agree within the test's run (PGlite runs in this process).
    expect((row!.confirmed_at as Date).getTime()).toBeGreaterThanOrEqual(before - 1_000);
    const wording = await db.query("select version, wording from public.newsletter_consent_wordings");
    expect(wording.rows).toEqual([{ version: CONSENT.version, wording: CONSENT.wording }]);
    expect(await sendReaders(db)).toEqual(["Ada@Example.com"]);
  });

  it("answers 'duplicate' for an address on the list in any letter case, and changes nothing", async () => {
    expect(await signUp("ada@example.com")).toBe("subscribed");
    const before = await rowOf("ada@example.com");
    expect(await signUp("ADA@example.com", "/", "other-version", "other words")).toBe("duplicate");
    expect(await rowOf("ada@example.com")).toEqual(before);
    expect(await count("public.newsletter_subscribers")).toBe(1);
    // The duplicate's wording was not kept: nobody agreed to it.
    expect(await count("public.newsletter_consent_wordings")).toBe(1);
  });

  it("keeps a wording's first text: a later call with the same version does not rewrite it", async () => {
    expect(await signUp("ada@example.com")).toBe("subscribed");
    expect(await signUp("grace@example.com", "/", CONSENT.version, "rewritten")).toBe("subscribed");
    const wording = await db.query("select wording from public.newsletter_consent_wordings");
    expect(wording.rows).toEqual([{ wording: CONSENT.wording }]);
  });

  it("stores a mailbox that left, suppressed, never mailed, its tombstone kept (as the plain insert is)", async () => {
    expect(await signUp("someone@gmail.com")).toBe("subscribed");
    const { token } = (
      await db.query<{ token: string }>("select unsubscribe_token as token from public.newsletter_subscribers")
    ).rows[0]!;
    expect(await answer("anon", "public.unsubscribe_newsletter($1)", [token])).toBe(true);
    // Another spelling of the same inbox.
    expect(await signUp("Some.One+news@googlemail.com")).toBe("subscribed");
    expect(await rowOf("some.one+news@googlemail.com")).toMatchObject({
      state: "confirmed",
      consent_page: CONSENT.page,
      suppressed_reason: "unsubscribed",
    });
    await asRole(db, "anon", (tx) =>
      tx.query("insert into public.newsletter_subscribers (email) values ('someone+plain@gmail.com')"),
    );
    expect(await rowOf("someone+plain@gmail.com")).toMatchObject({ suppressed_reason: "unsubscribed" });
    expect(await sendReaders(db)).toEqual([]);
    const stones = await db.query("select reason from newsletter_private.tombstones");
    expect(stones.rows).toEqual([{ reason: "unsubscribed" }]);
  });

  it("cannot skip a confirmation the database asks for: with a signing key stored it stores pending", async () => {
    await storeSigningKey(db, "k".repeat(40));
    expect(await signUp("ada@example.com")).toBe("pending");
    expect(await rowOf("ada@example.com")).toMatchObject({
      state: "pending",
      confirmed_at: null,
      consent_page: CONSENT.page,
      consent_version: CONSENT.version,
    });
    expect((await rowOf("ada@example.com"))!.confirm_requested_at).toBeInstanceOf(Date);
    // The visitor's plain insert, the same.
    await asRole(db, "anon", (tx) =>
      tx.query("insert into public.newsletter_subscribers (email) values ('grace@example.com')"),
    );
    expect(await rowOf("grace@example.com")).toMatchObject({ state: "pending", confirmed_at: null });
    expect(await sendReaders(db)).toEqual([]);
    // And such a row expires as every pending sign-up does.
    await db.exec(
      "update public.newsletter_subscribers set created_at = created_at - interval '8 days', " +
        "confirm_requested_at = confirm_requested_at - interval '8 days'",
    );
    expect(await signUp("linus@example.com")).toBe("pending");
    expect(await rowOf("ada@example.com")).toBeUndefined();
    expect(await rowOf("grace@example.com")).toBeUndefined();
  });

  it("removes the pending sign-ups whose 7 days are over, as every sign-up does", async () => {
    await storeSigningKey(db, "k".repeat(40));
    expect(await signUp("ada@example.com")).toBe("pending");
    await db.exec("delete from newsletter_private.settings where name = 'confirm_signing_key'");
    await db.exec(
      "update public.newsletter_subscribers set confirm_requested_at = confirm_requested_at - interval '8 days'",
    );
    // The expired pending row is gone first, so this is a new sign-up, not a duplicate.
    expect(await signUp("ada@example.com")).toBe("subscribed");
    expect(await rowOf("ada@example.com")).toMatchObject({ state: "confirmed", consent_page: CONSENT.page });
  });

  it.each([
    ["no page", null, CONSENT.version, CONSENT.wording],
    ["a page that is not a path of the site", "https://elsewhere.example/", CONSENT.version, CONSENT.wording],
    ["an empty page", "", CONSENT.version, CONSENT.wording],
    ["no wording version", "/", null, CONSENT.wording],
    ["no wording", "/", CONSENT.version, null],
  ])("refuses %s and stores nothing", async (_label, page, version, words) => {
    expect(await failureOf(signUp("ada@example.com", page, version, words))).toMatchObject({ code: "22023" });
    expect(await count("public.newsletter_subscribers")).toBe(0);
    expect(await count("public.newsletter_consent_wordings")).toBe(0);
  });

  it.each([
    ["an address the table refuses", " ada@example.com", "/", CONSENT.version, CONSENT.wording],
    ["a wording longer than the table keeps", "ada@example.com", "/", CONSENT.version, "w".repeat(4001)],
    ["a version longer than the table keeps", "ada@example.com", "/", "v".repeat(65), CONSENT.wording],
  ])("refuses %s (the table's own check) and stores nothing", async (_label, email, page, version, words) => {
    expect(await failureOf(signUp(email, page, version, words))).toMatchObject({ code: "23514" });
    expect(await count("public.newsletter_subscribers")).toBe(0);
    expect(await count("public.newsletter_consent_wordings")).toBe(0);
  });

  it("keeps 200 characters of a long page, as the confirmed sign-up does", async () => {
    expect(await signUp("ada@example.com", `/${"p".repeat(400)}`)).toBe("subscribed");
    expect((await rowOf("ada@example.com"))!.consent_page).toBe(`/${"p".repeat(199)}`);
  });

  it("is the anon role's alone: authenticated may not call it, and anon still reads nothing", async () => {
    expect(
      await failureOf(answer("authenticated", "public.newsletter_sign_up_without_mail('a@b.co', '/', 'v', 'w')")),
    ).toMatchObject({ code: "42501" });
    expect(await signUp("ada@example.com")).toBe("subscribed");
    expect(
      await failureOf(asRole(db, "anon", (tx) => tx.query("select email from public.newsletter_subscribers"))),
    ).toMatchObject({ code: "42501" });
    expect(
      await failureOf(asRole(db, "anon", (tx) => tx.query("select * from public.newsletter_consent_wordings"))),
    ).toMatchObject({ code: "42501" });
  });
});
