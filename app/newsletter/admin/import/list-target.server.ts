// The import's target over the list's owner operations (the embedded store): each reader stored confirmed with
// their consent record, suppressed when the file says they left, bounced or complained at the other tool.
import { describeImportConsent, type ImportConsent } from "~/newsletter/admin/import/consent.server";
import type { ImportTarget } from "~/newsletter/admin/import/run-import.server";
import type { ImportedRow, OwnerOperations } from "~/newsletter/list/subscriber-list.server";

const rowOf = (email: string, consent: ImportConsent): ImportedRow => ({
  email,
  createdAt: consent.originalDate ?? consent.importedAt,
  importedAt: consent.importedAt,
  consentNote: describeImportConsent(consent),
  suppression: null,
});

export function importTarget(owner: Pick<OwnerOperations, "has" | "addImported">): ImportTarget {
  return {
    has: (email) => owner.has(email),
    addConfirmed: (reader, consent) => owner.addImported(rowOf(reader.email, consent)),
    addSuppressed: (reader, reason, consent) =>
      owner.addImported({
        ...rowOf(reader.email, consent),
        suppression: { reason, at: consent.importedAt, detail: consent.statusInFile ?? "said so in the import" },
      }),
  };
}
