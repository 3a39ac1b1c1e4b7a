// The embedded list's tombstones: who left, by mailbox (a keyed hash, never the address), why and when. The key is
// kept in the list's own file (newsletter_ledger); `mailbox_hash(email)` is a SQL function of each connection, so the
// queries say "this mailbox" the way the Supabase migration's do. The rules are ../ledger.ts's.
import type { DatabaseSync } from "node:sqlite";
import { statement } from "~/utils/sqlite-statements.server";
import { type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { mailboxHash, newLedgerKey } from "~/newsletter/list/mailbox-hash.server";
import { allCarried, carriedOf, dropCarried, strongest } from "~/newsletter/list/sqlite/carried-tombstones.server";
import type { SuppressReason, Suppression } from "~/newsletter/list/subscriber-list.server";

export interface Tombstone {
  mailbox: string;
  reason: LeftReason;
  at: string;
}

/** The list's ledger key, made on first use. */
export function ledgerKey(db: DatabaseSync): string {
  statement(db, "insert or ignore into newsletter_ledger (name, value) values ('key', ?)").run(newLedgerKey());
  return (statement(db, "select value from newsletter_ledger where name = 'key'").get() as { value: string }).value;
}

/**
 * Makes `mailbox_hash(email)` callable on this connection, with the list's key; the first time, tombstones the
 * mailboxes of readers suppressed before tombstones existed (once: a later lift must not be undone at the next open).
 */
export function openLedger(db: DatabaseSync): string {
  const key = ledgerKey(db);
  db.function("mailbox_hash", { deterministic: true }, (email) =>
    typeof email === "string" ? mailboxHash(key, email) : null,
  );
  fillMailboxes(db);
  const done = statement(db, "select 1 from newsletter_ledger where name = 'tombstones-from-rows'").get();
  if (!done) {
    db.exec(`
      insert or ignore into newsletter_tombstones (mailbox, reason, at)
        select mailbox_hash(email),
               case when suppressed_reason in ('bounced', 'complained') and consent_page like '/%'
                    then suppressed_reason else 'imported' end,
               coalesce(suppressed_at, created_at)
        from newsletter_subscribers where suppressed_reason is not null;
      insert or ignore into newsletter_ledger (name, value) values ('tombstones-from-rows', 'done');
    `);
  }
  return key;
}

/** Stores the mailbox hash of rows written without it (by this version's inserts, or by a file from before it). */
export function fillMailboxes(db: DatabaseSync) {
  statement(db, "update newsletter_subscribers set mailbox = mailbox_hash(email) where mailbox is null").run();
}

/**
 * Rows of the mailbox bound as `:mailbox` (its hash): the stored column by its index, and a row not yet filled by
 * its address, so no write path that forgets to fill it can hide a reader from the ledger.
 */
export const SAME_MAILBOX = "(mailbox = :mailbox or (mailbox is null and mailbox_hash(email) = :mailbox))";

/** The hash of the mailbox `email` reaches, with this list's key. */
export const mailboxOf = (db: DatabaseSync, email: string): string =>
  (statement(db, "select mailbox_hash(?) as m").get(email) as { m: string }).m;

/** The tombstone of the mailbox `email` reaches, if any: the list's own, or one it carries from an earlier list. */
export function tombstoneOf(db: DatabaseSync, email: string): Tombstone | null {
  const own = statement(
    db,
    "select mailbox, reason, at from newsletter_tombstones where mailbox = mailbox_hash(?)",
  ).get(email) as Tombstone | undefined;
  const carried = strongest([...(own ? [own] : []), ...carriedOf(db, email)]);
  if (!carried) return null;
  return { mailbox: own?.mailbox ?? mailboxOf(db, email), ...carried };
}

/** Every tombstone (the list's own and those it carries), oldest first. */
export const allTombstones = (db: DatabaseSync): Tombstone[] =>
  [
    ...(statement(db, "select mailbox, reason, at from newsletter_tombstones").all() as unknown as Tombstone[]),
    ...allCarried(db).map(({ mailbox, reason, at }) => ({ mailbox, reason, at })),
  ].sort((a, b) => (a.at === b.at ? a.mailbox.localeCompare(b.mailbox) : a.at < b.at ? -1 : 1));

/** Writes (or strengthens) the tombstone of a hashed mailbox; the reason it holds after. */
export function writeTombstone(db: DatabaseSync, mailbox: string, reason: LeftReason, at: string): LeftReason {
  const found = statement(db, "select reason from newsletter_tombstones where mailbox = ?").get(mailbox) as
    { reason: LeftReason } | undefined;
  const kept = strongerReason(found?.reason ?? null, reason);
  statement(
    db,
    "insert into newsletter_tombstones (mailbox, reason, at) values (?1, ?2, ?3) " +
      "on conflict (mailbox) do update set reason = ?2, at = max(at, ?3)",
  ).run(mailbox, kept, at);
  return kept;
}

/**
 * A mailbox leaves: its tombstone is written, and every row that reaches it (any spelling) is suppressed with
 * `rowReason`, its mailed confirmation links dead. Rows suppressed already keep their own reason.
 */
export function leaveMailbox(
  db: DatabaseSync,
  email: string,
  reason: LeftReason,
  suppression: { reason: SuppressReason | Suppression["reason"]; at: Date; detail: string },
): LeftReason {
  const mailbox = mailboxOf(db, email);
  // A tombstone carried from an earlier list moves to this list's key, keeping its reason if it is the stronger.
  const carried = dropCarried(db, email);
  if (carried) writeTombstone(db, mailbox, carried.reason, carried.at);
  const kept = writeTombstone(db, mailbox, reason, suppression.at.toISOString());
  statement(
    db,
    "update newsletter_subscribers set suppressed_reason = :reason, suppressed_at = :at, suppressed_detail = :detail, " +
      `confirm_token_hash = null, previous_confirm_token_hash = null where ${SAME_MAILBOX} and suppressed_reason is null`,
  ).run({ reason: suppression.reason, at: suppression.at.toISOString(), detail: suppression.detail, mailbox });
  return kept;
}

/** Lifts the tombstone of the mailbox `email` reaches (its own and any carried); whether there was one. */
export function liftTombstone(db: DatabaseSync, email: string): boolean {
  const own = Number(
    statement(db, "delete from newsletter_tombstones where mailbox = mailbox_hash(?)").run(email).changes,
  );
  return dropCarried(db, email) !== null || own > 0;
}

/** The reason a row of a tombstoned mailbox is suppressed with (an import's tombstone: "unsubscribed" elsewhere). */
export const rowReasonOf = (reason: LeftReason): Suppression["reason"] =>
  reason === "imported" ? "unsubscribed" : reason;

/** Rows the reader made here, by the form (their consent page is a path on the site; readers from before have none). */
export const SIGNED_UP_HERE = "(consent_page is null or consent_page like '/%')";
