// A reader brought from another tool (npm run subscribers -- import): confirmed there, so confirmed here, with a
// consent record saying where (kept in consent_page, which `show` and the export print), and suppressed when the
// file said they left or bounced there, so that no mail and no later import can reach them.
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";

/** Stores the reader unless the address is there in any letter case; whether it was stored. */
export function addImported(db: DatabaseSync, row: ImportedRow): boolean {
  const { suppression } = row;
  const result = db
    .prepare(
      "insert or ignore into newsletter_subscribers (email, created_at, unsubscribe_token, state, confirmed_at, " +
        "consent_page, suppressed_reason, suppressed_at, suppressed_detail) " +
        "values (?, ?, ?, 'confirmed', ?, ?, ?, ?, ?)",
    )
    .run(
      row.email,
      row.createdAt,
      randomUUID(),
      row.importedAt,
      row.consentNote,
      suppression?.reason ?? null,
      suppression?.at ?? null,
      suppression?.detail ?? null,
    );
  return Number(result.changes) > 0;
}
