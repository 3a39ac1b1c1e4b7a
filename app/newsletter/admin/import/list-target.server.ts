// The import's target over the list's owner operations (the embedded store) or the Supabase adapter's import calls:
// each reader stored confirmed with their consent record, suppressed when the file says they left, bounced or
// complained at the other tool.
import { describeImportConsent, type ImportConsent } from "~/newsletter/admin/import/consent.server";
import type { ImportTarget } from "~/newsletter/admin/import/run-import.server";
import type { ImportedRow, OwnerOperations } from "~/newsletter/list/subscriber-list.server";

/** Either store's way in: the embedded one answers at once, Supabase by a promise. */
interface ImportingList {
  has: OwnerOperations["has"] | ((email: string) => Promise<boolean>);
  /** The embedded list's every row, read once: cheaper than a question per row of a long file. */
  rows?: OwnerOperations["rows"];
  addImported: OwnerOperations["addImported"] | ((row: ImportedRow) => Promise<boolean>);
}

const rowOf = (email: string, consent: ImportConsent): ImportedRow => ({
  email,
  createdAt: consent.originalDate ?? consent.importedAt,
  importedAt: consent.importedAt,
  consentNote: describeImportConsent(consent),
  suppression: null,
});

export function importTarget(owner: ImportingList): ImportTarget {
  const rows = owner.rows?.bind(owner);
  return {
    has: (email) => owner.has(email),
    ...(rows ? { known: () => new Set(rows().map((row) => row.email.toLowerCase())) } : {}),
    addConfirmed: (reader, consent) => owner.addImported(rowOf(reader.email, consent)),
    addSuppressed: (reader, reason, consent) =>
      owner.addImported({
        ...rowOf(reader.email, consent),
        suppression: { reason, at: consent.importedAt, detail: consent.statusInFile ?? "said so in the import" },
      }),
  };
}
