// The relay-unsubscribe migration on real Postgres (PGlite), after every earlier one, called as the server calls it
// (the anon key, signed): a reader's own unsubscribe at a relay suppresses every spelling of their mailbox and leaves
// a tombstone of the reader's own act, which the owner's unsuppress refuses and an import cannot undo.
import { readdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshSupabaseDatabase, migrate, sendReaders, storeSigningKey } from "../../../support/pglite-migrations";
import { answerOf, signedCalls } from "../../../support/pglite-signed-calls";

const MIGRATION = "20261128100000_newsletter_relay_unsubscribe.sql";
const KEY = "k".repeat(40);
const AT = Date.parse("2026-11-28T01:00:00.000Z");
let db: PGlite;

const answer = (role: string, sql: string, params: unknown[] = []) => answerOf(db, role, sql, params);
const calls = signedCalls(() => db, KEY);
const suppress = (email: string, reason: string) => calls.suppress(email, reason, "Postmark ManualSuppression", AT);
const unsuppress = calls.unsuppress;
const reasonOf = async (email: string) =>
  (
    await db.query<{ reason: string | null }>(
      "select suppressed_reason as reason from public.newsletter_subscribers where email = $1",
      [email],
    )
  ).rows[0]?.reason;

beforeAll(async () => {
  const all = readdirSync(new URL("../../../../supabase/migrations/", import.meta.url)).sort();
  db = await freshSupabaseDatabase();
  await migrate(db, ...all.filter((name) => name < MIGRATION));
  await storeSigningKey(db, KEY);
  await db.exec(
    "insert into public.newsletter_subscribers (email, state) values " +
      "('Reader+news@Gmail.com', 'confirmed'), ('r.e.a.d.e.r@googlemail.com', 'confirmed'), " +
      "('stays@example.org', 'confirmed')",
  );
}, 120_000);
afterAll(async () => {
  await db?.close();
});

describe("a reader's own unsubscribe at a relay, with Supabase", () => {
  it("is refused before the migration and taken after it, twice without harm", async () => {
    await expect(suppress("Reader+news@Gmail.com", "unsubscribed")).rejects.toThrow(/bounced or complained/);
    await migrate(db, MIGRATION, MIGRATION);
    expect(await suppress("Reader+news@Gmail.com", "unsubscribed")).toBe("suppressed");
    expect(await suppress("Reader+news@Gmail.com", "unsubscribed")).toBe("already");
    expect(await reasonOf("Reader+news@Gmail.com")).toBe("unsubscribed");
    expect(await reasonOf("r.e.a.d.e.r@googlemail.com")).toBe("unsubscribed");
    expect(await sendReaders(db)).toEqual(["stays@example.org"]);
    const stones = await db.query<{ reason: string }>("select reason from newsletter_private.tombstones");
    expect(stones.rows).toEqual([{ reason: "unsubscribed" }]);
  });

  it("is the reader's own act: the owner's unsuppress refuses it and an import does not bring the reader back", async () => {
    expect(await unsuppress("reader@gmail.com")).toBe("kept-unsubscribed");
    await db.exec("delete from public.newsletter_subscribers where email <> 'stays@example.org'");
    const imported = await answer("service_role", "public.newsletter_import_reader($1, $2, $3, $4, $5, $6)", [
      "reader@gmail.com",
      null,
      new Date(AT + 60_000).toISOString(),
      "imported from export.csv (Mailchimp)",
      null,
      null,
    ]);
    expect(imported).toBe("exists");
    expect(await sendReaders(db)).toEqual(["stays@example.org"]);
  });

  it("still refuses an unknown reason and an unsigned call", async () => {
    await expect(suppress("stays@example.org", "bored")).rejects.toThrow(/bounced, complained or unsubscribed/);
    const unsigned = await answer("anon", "public.newsletter_suppress($1, $2, $3, $4, $5, $6)", [
      "stays@example.org",
      "unsubscribed",
      "forged",
      AT,
      Date.now(),
      "0".repeat(64),
    ]);
    expect(unsigned).toBe("refused");
    expect(await reasonOf("stays@example.org")).toBeNull();
  });
});
