// The world of the ledger's model against Supabase (./pglite-commands.ts): the model of who left, the database beside
// it, and the promises checked after every door.
import type { PGlite } from "@electric-sql/pglite";
import type fc from "fast-check";
import { type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { asRole, sendReaders } from "../pglite-migrations";
import { ADDRESSES } from "./commands";

/** The reader of a new project who leaves it before the owner restores the old project's backup (./pglite-backup-doors.ts). */
export const NEWCOMER = "newcomer@example.org";

export interface PgModel {
  left: Map<string, LeftReason>;
  tokens: Map<string, string>;
  /** Each backup: its file, who was on the list and who had left then. */
  backups: { file: string; addresses: Set<string>; left: Map<string, LeftReason> }[];
}

export interface PgReal {
  db: PGlite;
  serial: number;
  dir: string;
}

export const answer = async (real: PgReal, role: string, sql: string, params: unknown[] = []) =>
  asRole(real.db, role, async (tx) => (await tx.query<{ a: unknown }>(`select ${sql} as a`, params)).rows[0]!.a);

export const mailbox = (email: string) => mailboxKey(email);
export const leave = (model: PgModel, email: string, reason: LeftReason) =>
  model.left.set(mailbox(email), strongerReason(model.left.get(mailbox(email)) ?? null, reason));

export type Cmd = fc.AsyncCommand<PgModel, PgReal>;

export const door = (name: string, run: (model: PgModel, real: PgReal) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (model, real) => {
    await run(model, real);
    await checkInvariants(model, real);
  },
  toString: () => name,
});

/**
 * Which of the model's addresses reach a mailbox the database remembers as left: a tombstone of the list's own key, or
 * one it carries from an earlier list's (asked without moving it, as no door met it).
 */
async function leftInDatabase(real: PgReal): Promise<Set<string>> {
  const found = await real.db.query<{ email: string }>(
    "select a.email from unnest($1::text[]) a(email) where exists (select 1 from newsletter_private.tombstones t " +
      "where t.mailbox = newsletter_private.mailbox_hash(a.email)) or exists (select 1 from " +
      "newsletter_private.carried_tombstones c where c.mailbox = " +
      "encode(extensions.hmac(newsletter_private.mailbox_key(a.email), c.key, 'sha256'), 'hex'))",
    [[...ADDRESSES, NEWCOMER]],
  );
  return new Set(found.rows.map((row) => mailbox(row.email)));
}

async function checkInvariants(model: PgModel, real: PgReal) {
  for (const email of await sendReaders(real.db)) {
    if (model.left.has(mailbox(email))) throw new Error(`${email} left and is still mailed`);
  }
  // Every reader has a consent record: the page (an import's note), when they were confirmed, and for a sign-up by the
  // form the wording they agreed to.
  const unrecorded = await real.db.query<{ email: string }>(
    "select email from public.newsletter_subscribers s where state = 'confirmed' and suppressed_reason is null " +
      "and (consent_page is null or confirmed_at is null or (consent_page like '/%' and not exists (" +
      "select 1 from public.newsletter_consent_wordings w where w.version = s.consent_version)))",
  );
  if (unrecorded.rows.length > 0)
    throw new Error(`a reader without a consent record: ${JSON.stringify(unrecorded.rows)}`);
  const { n } = (
    await real.db.query<{ n: number }>(
      "select (select count(*) from newsletter_private.tombstones) + " +
        "(select count(*) from newsletter_private.carried_tombstones) as n",
    )
  ).rows[0]!;
  if (Number(n) < model.left.size) throw new Error(`${n} tombstones, where ${model.left.size} mailboxes left`);
  const left = await leftInDatabase(real);
  const expected = [...model.left.keys()].sort().join(", ");
  if ([...left].sort().join(", ") !== expected) {
    throw new Error(`the mailboxes that left are ${[...left].sort().join(", ")}, where the model says ${expected}`);
  }
}
