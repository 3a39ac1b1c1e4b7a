// A reader brought from another tool (npm run subscribers -- import): confirmed there, so confirmed here, with a
// consent record saying where (kept in consent_page, which `show` and the export print). When the file says they left
// or bounced there, the mailbox is tombstoned as 'imported', whatever the order of the files: a reader an earlier
// file brought in is suppressed now. A reader who signed up here by the form keeps their own word (ledger.ts).
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";
import {
  leaveMailbox,
  mailboxOf,
  SAME_MAILBOX,
  SIGNED_UP_HERE,
  tombstoneOf,
} from "~/newsletter/list/sqlite/tombstones.server";
import { transaction } from "~/utils/sqlite-transaction.server";

/** Stores or suppresses the reader as the file says (see OwnerOperations.addImported); whether anything changed. */
export function addImported(db: DatabaseSync, row: ImportedRow): boolean {
  return transaction(db, () => {
    const { suppression } = row;
    const present = db
      .prepare(`select suppressed_reason as reason from newsletter_subscribers where lower(email) = lower(?)`)
      .get(row.email) as { reason: string | null } | undefined;
    const leftBefore = tombstoneOf(db, row.email) !== null;
    if (!suppression) {
      if (present || leftBefore) return false;
      insert(db, row);
      return true;
    }
    const ownWord = db
      .prepare(`select 1 from newsletter_subscribers where ${SAME_MAILBOX} and ${SIGNED_UP_HERE}`)
      .get({ mailbox: mailboxOf(db, row.email) });
    if (ownWord) return false;
    leaveMailbox(db, row.email, "imported", { ...suppression, at: new Date(suppression.at) });
    if (present) return present.reason === null;
    // A mailbox that left by its own act is not stored again from someone else's file.
    if (leftBefore) return false;
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
