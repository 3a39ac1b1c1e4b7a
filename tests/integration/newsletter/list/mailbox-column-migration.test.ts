// The stored mailbox of the Supabase list (supabase/migrations/20261128200000_newsletter_mailbox_column.sql), on real
// Postgres (PGlite): every row holds the keyed hash of the mailbox it reaches, whatever wrote it, and the ledger's
// lookups of "every row of this mailbox" read its index instead of hashing the whole list, shown by the planner and
// by Postgres's own count of the scans each function made.
import { readdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { asRole, freshSupabaseDatabase, migrate, storeSigningKey } from "../../../support/pglite-migrations";

const MAILBOX_COLUMN = "20261128200000_newsletter_mailbox_column.sql";
const ALL = readdirSync(new URL("../../../../supabase/migrations/", import.meta.url)).sort();
const BEFORE = ALL.filter((name) => name < MAILBOX_COLUMN);
const AT = "2026-11-27T10:00:00.000Z";
/** Enough readers that a scan of the list costs more than the index: the planner's own choice, not a forced one. */
const LIST_SIZE = 4000;

let db: PGlite;

const ledgerKey = async () =>
  (await db.query<{ value: string }>("select value from newsletter_private.settings where name = 'ledger_key'"))
    .rows[0]!.value;

const stored = async () =>
  (
    await db.query<{ email: string; mailbox: string | null; suppressed_reason: string | null }>(
      "select email, mailbox, suppressed_reason from public.newsletter_subscribers order by id",
    )
  ).rows;

const one = async <T>(sql: string, params: unknown[] = []) =>
  (await db.query<{ answer: T }>(`select ${sql} as answer`, params)).rows[0]!.answer;

/** How many sequential and index scans Postgres has counted on the list's table so far. */
async function scans() {
  await db.query("select pg_stat_force_next_flush()");
  const { rows } = await db.query<{ seq_scan: number; idx_scan: number }>(
    "select seq_scan::int, idx_scan::int from pg_stat_user_tables where relname = 'newsletter_subscribers'",
  );
  return rows[0]!;
}

/** The scans `work` made on the list's table. */
async function scansOf(work: () => Promise<unknown>) {
  const before = await scans();
  await work();
  const after = await scans();
  return { seq: after.seq_scan - before.seq_scan, index: after.idx_scan - before.idx_scan };
}

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...BEFORE);
  await storeSigningKey(db, "k".repeat(40));
  await db.query(
    `insert into public.newsletter_subscribers (email, state, consent_page, suppressed_reason, suppressed_at)
     values ('Some.One@gmail.com', 'confirmed', '/', null, null),
            ('someone+news@googlemail.com', 'pending', '/', null, null),
            ('gone@example.com', 'confirmed', 'Imported from Mailchimp', 'unsubscribed', $1)`,
    [AT],
  );
  await migrate(db, MAILBOX_COLUMN);
}, 120_000);
afterAll(async () => {
  await db?.close();
});

describe("the stored mailbox", () => {
  it("is filled for the rows the list held before, with the ledger's keyed hash of their mailbox", async () => {
    const key = await ledgerKey();
    const rows = await stored();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.mailbox).toBe(mailboxHash(key, row.email));
    expect(rows[0]!.mailbox).toBe(rows[1]!.mailbox);
    expect(rows[0]!.mailbox).not.toBe(rows[2]!.mailbox);
  });

  it("is written for a visitor's insert, follows a changed address, and cannot be forged", async () => {
    const key = await ledgerKey();
    await asRole(db, "anon", (tx) =>
      tx.query("insert into public.newsletter_subscribers (email) values ('Visitor@Example.com')"),
    );
    const mailboxOf = async (email: string) =>
      (
        await db.query<{ mailbox: string }>(
          "select mailbox from public.newsletter_subscribers where lower(email) = lower($1)",
          [email],
        )
      ).rows[0]?.mailbox;
    expect(await mailboxOf("visitor@example.com")).toBe(mailboxHash(key, "visitor@example.com"));

    await db.query(
      "update public.newsletter_subscribers set email = 'moved@example.com' where email = 'Visitor@Example.com'",
    );
    expect(await mailboxOf("moved@example.com")).toBe(mailboxHash(key, "moved@example.com"));

    await db.query("update public.newsletter_subscribers set mailbox = 'forged' where email = 'moved@example.com'");
    expect(await mailboxOf("moved@example.com")).toBe(mailboxHash(key, "moved@example.com"));
    await db.query("update public.newsletter_subscribers set mailbox = null where email = 'moved@example.com'");
    expect(await mailboxOf("moved@example.com")).toBe(mailboxHash(key, "moved@example.com"));
  });

  it("finds every spelling of a mailbox: a complaint suppresses them all, and an import's word spares a form's reader", async () => {
    expect(await one("newsletter_private.suppress($1, 'complained', 'spam', $2)", ["someone@gmail.com", AT])).toBe(
      "unknown",
    );
    const reasons = Object.fromEntries((await stored()).map((row) => [row.email, row.suppressed_reason]));
    expect(reasons["Some.One@gmail.com"]).toBe("complained");
    expect(reasons["someone+news@googlemail.com"]).toBe("complained");
    expect(reasons["moved@example.com"]).toBeNull();

    expect(await one("newsletter_private.suppress($1, 'bounced', 'no such user', $2)", ["MOVED@example.com", AT])).toBe(
      "suppressed",
    );
    expect(await one("newsletter_private.lift($1)", ["moved+x@example.com"])).toBe("lifted");
    expect((await stored()).find((row) => row.email === "moved@example.com")!.suppressed_reason).toBeNull();

    const imported = await one(
      "public.newsletter_import_reader($1, null, $2, 'Imported from Mailchimp', 'unsubscribed', null)",
      ["Moved@Example.com", AT],
    );
    expect(imported).toBe("exists");
    expect((await stored()).find((row) => row.email === "moved@example.com")!.suppressed_reason).toBeNull();
  });
});

describe("the ledger's lookups on a list of thousands", () => {
  beforeAll(async () => {
    await db.query(
      `insert into public.newsletter_subscribers (email, state, consent_page, confirm_token_hash, confirm_token_at)
       select 'reader' || g || '@example.com', 'confirmed', '/', null, null from generate_series(1, $1::int) g`,
      [LIST_SIZE],
    );
    await db.query(
      `update public.newsletter_subscribers set state = 'pending', confirm_token_hash = encode(sha256('token-7'::bytea), 'hex'),
         confirm_token_at = now() where email = 'reader7@example.com'`,
    );
    await db.query("analyze public.newsletter_subscribers");
  }, 120_000);

  it("the planner reads the mailbox's index for the rows of one mailbox", async () => {
    const key = await ledgerKey();
    const { rows } = await db.query<{ "QUERY PLAN": string }>(
      `explain update public.newsletter_subscribers s set suppressed_reason = 'bounced'
       where s.mailbox = $1 and s.suppressed_reason is null`,
      [mailboxHash(key, "reader10@example.com")],
    );
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).toMatch(/Index Scan using newsletter_subscribers_mailbox/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  const doors: [string, () => Promise<unknown>][] = [
    [
      "a complaint (leave)",
      () => one("newsletter_private.suppress($1, 'complained', 'spam', $2)", ["reader11@example.com", AT]),
    ],
    [
      "a bounce of an address not on the list",
      () => one("newsletter_private.suppress($1, 'bounced', 'gone', $2)", ["nobody@example.com", AT]),
    ],
    [
      "a relay's unsubscribe",
      () => one("newsletter_private.suppress($1, 'unsubscribed', 'left', $2)", ["reader12@example.com", AT]),
    ],
    [
      "a bounce, then the owner's lift",
      async () => {
        await one("newsletter_private.suppress($1, 'bounced', 'full', $2)", ["reader13@example.com", AT]);
        return one("newsletter_private.lift($1)", ["reader13@example.com"]);
      },
    ],
    [
      "an import that says a reader left",
      () =>
        one("public.newsletter_import_reader($1, null, $2, 'Imported from Mailchimp', 'unsubscribed', null)", [
          "reader14@example.com",
          AT,
        ]),
    ],
    [
      "an import of a new reader",
      () =>
        one("public.newsletter_import_reader($1, null, $2, 'Imported from Mailchimp', null, null)", [
          "new@example.com",
          AT,
        ]),
    ],
    [
      "an unsubscribe by link",
      async () => {
        const token = await one<string>(
          "(select unsubscribe_token from public.newsletter_subscribers where lower(email) = 'reader15@example.com')",
        );
        return one("public.unsubscribe_newsletter($1::uuid)", [token]);
      },
    ],
    ["a confirmation", () => one("public.newsletter_confirm_reader('token-7')")],
  ];

  it.each(doors)("%s never scans the whole list", async (_name, door) => {
    const counted = await scansOf(door);
    expect(counted.seq).toBe(0);
    expect(counted.index).toBeGreaterThan(0);
  });
});
