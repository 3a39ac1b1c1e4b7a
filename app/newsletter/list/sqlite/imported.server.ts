// A reader brought from another tool (npm run subscribers -- import): confirmed there, so confirmed here, with a
// consent record saying where (kept in consent_page, which `show` and the export print). When the file says they left
// or bounced there, the mailbox is tombstoned as 'imported', whatever the order of the files: a reader an earlier
// file brought in is suppressed now. A reader who signed up here by the form keeps their own word (ledger.ts).
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { statement } from "~/utils/sqlite-statements.server";
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { transition } from "~/newsletter/list/ledger";
import { ledgerState, rowState, signedUpHere } from "~/newsletter/list/sqlite/mailbox-state.server";
import { leaveMailbox, mailboxOf } from "~/newsletter/list/sqlite/tombstones.server";
import { transaction } from "~/utils/sqlite-transaction.server";

/**
 * Stores or suppresses each reader as the file says (see OwnerOperations.addImportedBatch), in one transaction: each
 * reader within a savepoint of its own, so a reader that fails is undone alone and answers its error.
 */
export function addImportedBatch(db: DatabaseSync, rows: readonly ImportedRow[]): (boolean | Error)[] {
  return transaction(db, () =>
    rows.map((row) => {
      db.exec("savepoint import_reader");
      try {
        const changed = addImported(db, row);
        db.exec("release import_reader");
        return changed;
      } catch (error) {
        db.exec("rollback to import_reader");
        db.exec("release import_reader");
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
}

/** Stores or suppresses one reader, inside the batch's transaction, as ledger.ts's table says; whether anything changed. */
function addImported(db: DatabaseSync, row: ImportedRow): boolean {
  const { suppression } = row;
  const found = rowState(db, row.email);
  const { state, reason } = ledgerState(db, row.email, found);
  const door = suppression ? "import-left" : "import-subscribed";
  const step = transition(state, door, reason, suppression ? signedUpHere(db, row.email) : false);
  if (step.refused) return false;
  if (step.tombstone && step.tombstone !== "lift") {
    leaveMailbox(db, row.email, step.tombstone, { ...suppression!, at: new Date(suppression!.at) });
  }
  // The reader's row: one already there was suppressed just now (if it was mailable), one whose mailbox had left is
  // not stored again from someone else's file, and a new one is stored as the file says.
  if (found) return !found.suppressed;
  if (state === "left") return false;
  insert(db, row);
  return true;
}

function insert(db: DatabaseSync, row: ImportedRow) {
  const { suppression } = row;
  statement(
    db,
    "insert into newsletter_subscribers (email, created_at, unsubscribe_token, state, confirmed_at, " +
      "consent_page, suppressed_reason, suppressed_at, suppressed_detail, mailbox) " +
      "values (?, ?, ?, 'confirmed', ?, ?, ?, ?, ?, ?)",
  ).run(
    row.email,
    row.createdAt,
    randomUUID(),
    row.importedAt,
    row.consentNote,
    suppression?.reason ?? null,
    suppression?.at ?? null,
    suppression?.detail ?? null,
    mailboxOf(db, row.email),
  );
}
