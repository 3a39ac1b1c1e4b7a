// The state the ledger's table (../ledger.ts) is asked about, read from the embedded list: the address's own row and
// its mailbox's tombstone. The table decides what a door does; the adapters only read this and write what it says.
import { statement } from "~/utils/sqlite-statements.server";
import type { DatabaseSync } from "node:sqlite";
import { type LeftReason, leftReasonOfRow, type MailboxState } from "~/newsletter/list/ledger";
import { mailboxOf, SAME_MAILBOX, SIGNED_UP_HERE, tombstoneOf } from "~/newsletter/list/sqlite/tombstones.server";

export interface LedgerState {
  state: MailboxState;
  /** The tombstone's reason (or, for a row suppressed before tombstones, the reason it stands for). */
  reason: LeftReason | null;
}

/** A row's part in it: its state, its suppression, and whether the reader signed up here by the form. */
export interface RowState {
  state: "pending" | "confirmed";
  suppressed: string | null;
  here: number;
}

/** The state of `email` in the table's terms: a mailable or waiting row names it; a tombstone or a suppressed row is `left`. */
export function ledgerState(db: DatabaseSync, email: string, row: RowState | undefined): LedgerState {
  const tombstone = tombstoneOf(db, email)?.reason ?? null;
  if (row && !row.suppressed) return { state: row.state, reason: tombstone };
  if (tombstone) return { state: "left", reason: tombstone };
  if (row?.suppressed) return { state: "left", reason: leftReasonOfRow(row.suppressed, !row.here) };
  return { state: "absent", reason: null };
}

/** The address's own row, as `ledgerState` reads it. */
export const rowState = (db: DatabaseSync, email: string): RowState | undefined =>
  statement(
    db,
    `select state, suppressed_reason as suppressed, ${SIGNED_UP_HERE} as here from newsletter_subscribers ` +
      "where lower(email) = lower(?)",
  ).get(email) as RowState | undefined;

/** Whether any row of the mailbox `email` reaches was signed up here by the form (the person's own word). */
export const signedUpHere = (db: DatabaseSync, email: string): boolean =>
  statement(db, `select 1 from newsletter_subscribers where ${SAME_MAILBOX} and ${SIGNED_UP_HERE}`).get({
    mailbox: mailboxOf(db, email),
  }) !== undefined;
