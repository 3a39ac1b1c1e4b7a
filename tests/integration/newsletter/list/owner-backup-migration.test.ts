// The owner's backup and restore functions of the Supabase list
// (supabase/migrations/20261128400000_newsletter_owner_backup.sql) on the real migrations in PGlite: the pages they
// read, and the ledger's rules a restore keeps (tombstones never weakened, a person's own return never undone, a
// mailbox that left since left out, another list's key taken by a list no one has left yet, and carried beside its own
// by any other: carried-tombstones-supabase.test.ts).
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { emptyList, startDatabase } from "../../../support/stub-supabase/database";

const AT = "2026-11-27T10:00:00.000Z";
const LATER = "2026-11-28T10:00:00.000Z";
const OTHER_KEY = "a".repeat(64);
let db: PGlite;

beforeAll(async () => {
  db = await startDatabase(undefined);
}, 120_000);
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await emptyList(db);
});

const ledgerKey = async () =>
  (await db.query<{ value: string }>("select value from newsletter_private.settings where name = 'ledger_key'"))
    .rows[0]!.value;

const tombstones = async () =>
  (
    await db.query<{ mailbox: string; reason: string; at: Date }>(
      "select mailbox, reason, at from newsletter_private.tombstones order by mailbox",
    )
  ).rows.map((row) => ({ ...row, at: row.at.toISOString() }));

interface RestoreAnswer {
  added: string[];
  alreadyThere: number;
  leftSince: number;
  tombstonesAdded: number;
  tombstonesKept: number;
  tombstonesCarried: number;
}

const restore = async (key: string | null, page: { readers?: unknown[]; tombstones?: unknown[] }) =>
  (
    await db.query<{ answer: RestoreAnswer }>(
      "select public.newsletter_restore_page($1, $2::jsonb, $3::jsonb, '[]'::jsonb) as answer",
      [key, JSON.stringify(page.readers ?? []), JSON.stringify(page.tombstones ?? [])],
    )
  ).rows[0]!.answer;

const reader = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  createdAt: AT,
  unsubscribeToken: null,
  state: "confirmed",
  confirmedAt: AT,
  consentPage: "/",
  ...extra,
});

describe("the owner's backup pages", () => {
  it("reads each part in pages by key, with the ledger's key, and only as much as asked", async () => {
    for (const email of ["a@example.com", "b@example.com", "c@example.com"]) {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", [email]);
    }
    const page = async (after: string | null) =>
      (
        await db.query<{ answer: { key: string; rows: { id: number; email: string }[] } }>(
          "select public.newsletter_backup_page('readers', $1, 2) as answer",
          [after],
        )
      ).rows[0]!.answer;
    const first = await page(null);
    expect(first.key).toBe(await ledgerKey());
    expect(first.rows.map((row) => row.email)).toEqual(["a@example.com", "b@example.com"]);
    const second = await page(String(first.rows[1]!.id));
    expect(second.rows.map((row) => row.email)).toEqual(["c@example.com"]);
  });
});

describe("a restore into the Supabase list", () => {
  it("never weakens a tombstone, and strengthens a weaker one", async () => {
    const key = await ledgerKey();
    const ivan = mailboxHash(key, "ivan@example.com");
    const joan = mailboxHash(key, "joan@example.net");
    await db.query(
      "insert into newsletter_private.tombstones (mailbox, reason, at) values ($1, 'complained', $3), ($2, 'imported', $3)",
      [ivan, joan, AT],
    );
    const answer = await restore(key, {
      tombstones: [
        { mailbox: ivan, reason: "imported", at: LATER },
        { mailbox: joan, reason: "unsubscribed", at: AT },
      ],
    });
    expect(answer).toMatchObject({ tombstonesKept: 2, tombstonesAdded: 0 });
    expect(await tombstones()).toEqual(
      [
        { mailbox: ivan, reason: "complained", at: LATER },
        { mailbox: joan, reason: "unsubscribed", at: AT },
      ].sort((a, b) => (a.mailbox < b.mailbox ? -1 : 1)),
    );
  });

  it("adds a missing tombstone, but not over a person's own return since, and leaves out a reader who left since", async () => {
    const key = await ledgerKey();
    // Ada left before the backup, then signed up again and confirmed by mail: her tombstone was lifted.
    await db.query(
      "insert into public.newsletter_subscribers (email, state, consent_page, confirm_token_hash, confirmed_at) " +
        "values ('ada@example.org', 'confirmed', '/', $1, $2)",
      ["c".repeat(64), LATER],
    );
    // Joan's complaint was lifted since too (in this list's own history only the person or the owner lifts one).
    await db.query(
      "insert into public.newsletter_subscribers (email, state, consent_page, confirmed_at) " +
        "values ('joan@example.net', 'confirmed', 'imported from export.csv (Mailchimp)', $1)",
      [LATER],
    );
    // Grace, on the backup, left since (another spelling of her mailbox).
    await db.query("insert into newsletter_private.tombstones (mailbox, reason, at) values ($1, 'unsubscribed', $2)", [
      mailboxHash(key, "grace@gmail.com"),
      LATER,
    ]);
    const answer = await restore(key, {
      tombstones: [
        { mailbox: mailboxHash(key, "ada@example.org"), reason: "unsubscribed", at: AT },
        { mailbox: mailboxHash(key, "ivan@example.com"), reason: "bounced", at: AT },
        { mailbox: mailboxHash(key, "joan@example.net"), reason: "complained", at: AT },
      ],
      readers: [
        reader("G.race+news@googlemail.com"),
        reader("ivan@example.com", { suppressedReason: "bounced", suppressedAt: AT, suppressedDetail: "550" }),
        reader("ada@example.org"),
        reader("pending@example.net", {
          state: "pending",
          confirmedAt: null,
          confirmTokenHash: "b".repeat(64),
          confirmTokenAt: AT,
        }),
      ],
    });
    expect(answer).toEqual({
      added: ["ivan@example.com", "pending@example.net"],
      alreadyThere: 1,
      leftSince: 1,
      tombstonesAdded: 1,
      tombstonesKept: 2,
      tombstonesCarried: 0,
    });
    const stored = await db.query<{ email: string; state: string; suppressed_reason: string | null; hash: string }>(
      "select email, state, suppressed_reason, confirm_token_hash as hash from public.newsletter_subscribers order by id",
    );
    expect(stored.rows).toEqual([
      { email: "ada@example.org", state: "confirmed", suppressed_reason: null, hash: "c".repeat(64) },
      { email: "joan@example.net", state: "confirmed", suppressed_reason: null, hash: null },
      { email: "ivan@example.com", state: "confirmed", suppressed_reason: "bounced", hash: null },
      { email: "pending@example.net", state: "pending", suppressed_reason: null, hash: "b".repeat(64) },
    ]);
    expect((await tombstones()).map((row) => row.reason).sort()).toEqual(["bounced", "unsubscribed"]);
  });

  it("takes another list's key into a list no one has left yet, and carries its tombstones beside any other's", async () => {
    const tombstone = { mailbox: mailboxHash(OTHER_KEY, "ivan@example.com"), reason: "unsubscribed", at: AT };
    const before = await ledgerKey();
    await db.query("insert into newsletter_private.tombstones (mailbox, reason, at) values ($1, 'bounced', $2)", [
      mailboxHash(before, "gone@example.org"),
      AT,
    ]);
    expect(await restore(OTHER_KEY, { tombstones: [tombstone] })).toMatchObject({
      tombstonesCarried: 1,
      tombstonesAdded: 0,
    });
    expect(await ledgerKey()).toBe(before);
    expect((await tombstones()).map((row) => row.reason)).toEqual(["bounced"]);
    const carried = await db.query("select key, mailbox, reason from newsletter_private.carried_tombstones");
    expect(carried.rows).toEqual([{ key: OTHER_KEY, mailbox: tombstone.mailbox, reason: "unsubscribed" }]);

    // A new project that took sign-ups (and an import) before the restore, but where nobody has left yet.
    await emptyList(db);
    await db.query(
      "insert into public.newsletter_subscribers (email) values ('ada@example.org'), ('Ivan+x@example.com')",
    );
    try {
      expect(await restore(OTHER_KEY, { tombstones: [tombstone] })).toMatchObject({ tombstonesAdded: 1 });
      expect(await ledgerKey()).toBe(OTHER_KEY);
      // The mailbox is named with that key now: Ivan's address reaches his tombstone.
      const left = await db.query<{ found: boolean }>(
        "select exists (select 1 from newsletter_private.tombstones " +
          "where mailbox = newsletter_private.mailbox_hash('Ivan+x@example.com')) as found",
      );
      expect(left.rows[0]!.found).toBe(true);
      // Its rows are named with the new key too, and Ivan's, from the import, left with his mailbox.
      const rows = await db.query<{ email: string; suppressed: string | null; named: boolean }>(
        "select email, suppressed_reason as suppressed, mailbox = newsletter_private.mailbox_hash(email) as named " +
          "from public.newsletter_subscribers order by lower(email)",
      );
      expect(rows.rows).toEqual([
        { email: "ada@example.org", suppressed: null, named: true },
        { email: "Ivan+x@example.com", suppressed: "unsubscribed", named: true },
      ]);
    } finally {
      await db.query("update newsletter_private.settings set value = $1 where name = 'ledger_key'", [before]);
    }
  });
});
