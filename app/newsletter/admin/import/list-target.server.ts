// The import's target over the list's owner operations (the embedded store) or the Supabase adapter's import calls:
// each reader stored confirmed with their consent record, suppressed when the file says they left, bounced or
// complained at the other tool.
import { describeImportConsent } from "~/newsletter/admin/import/consent.server";
import type { ImportTarget, ImportWrite, WriteAnswer } from "~/newsletter/admin/import/run-import.server";
import type { ImportedRow, OwnerOperations } from "~/newsletter/list/subscriber-list.server";

/** Either store's way in: the embedded one writes a batch in one transaction, Supabase a reader per call. */
type ImportingList =
  | Pick<OwnerOperations, "has" | "addImportedBatch">
  | { has(email: string): Promise<boolean>; addImported(row: ImportedRow): Promise<boolean> };

const rowOf = ({ reader, suppression, consent }: ImportWrite): ImportedRow => ({
  email: reader.email,
  createdAt: consent.originalDate ?? consent.importedAt,
  importedAt: consent.importedAt,
  consentNote: describeImportConsent(consent),
  suppression: suppression
    ? { reason: suppression, at: consent.importedAt, detail: consent.statusInFile ?? "said so in the import" }
    : null,
});

/** One reader after the other: a failure is that reader's alone. */
async function oneByOne(list: { addImported(row: ImportedRow): Promise<boolean> }, batch: readonly ImportWrite[]) {
  const answers: WriteAnswer[] = [];
  for (const write of batch) {
    answers.push(
      await list
        .addImported(rowOf(write))
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    );
  }
  return answers;
}

export function importTarget(list: ImportingList): ImportTarget {
  return {
    has: (email) => list.has(email),
    write: (batch) => ("addImportedBatch" in list ? list.addImportedBatch(batch.map(rowOf)) : oneByOne(list, batch)),
  };
}
