// A reader brought from another tool (npm run subscribers -- import): confirmed there, so confirmed here, with a
// consent record saying where (kept in consent_page, which `show` and the export print). When the file says they left
// or bounced there, the mailbox is tombstoned as 'imported', whatever the order of the files: a reader an earlier
// file brought in is suppressed now. A reader who signed up here by the form keeps their own word (ledger.ts).
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { transition } from "~/newsletter/list/ledger";
import { ledgerState, rowState, signedUpHere } from "~/newsletter/list/sqlite/mailbox-state.server";
import { leaveMailbox, mailboxOf } from "~/newsletter/list/sqlite/tombstones.server";
import { transaction } from "~/utils/sqlite-transaction.server";

/** Stores or suppresses the reader as the file says (see OwnerOperations.addImported); whether anything changed. */
export function addImported(db: DatabaseSync, row: ImportedRow): boolean {
  return transaction(db, () => {
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
  });
}

function insert(db: DatabaseSync, row: ImportedRow) {
  const { suppression } = row;
  db.prepare(
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
