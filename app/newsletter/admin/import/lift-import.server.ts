/**
 * `npm run subscribers -- unsuppress --import <file>`: lifts every suppression an import of that file made, in one
 * command, for the owner who finds a file was read the wrong way. The file is read again for the addresses it said
 * left, bounced or complained; a reader is lifted only while their record still says this file's import suppressed
 * them (a relay's bounce or a reader's own leaving since then is theirs, and stays).
 */
import path from "node:path";
import { cleanField } from "~/newsletter/admin/import/clean-text";
import { ImportFileError } from "~/newsletter/admin/import/csv-reader.server";
import { addressKey } from "~/newsletter/admin/import/plan.server";
import { openExport } from "~/newsletter/admin/import/read-export.server";
import { plural } from "~/newsletter/admin/import/report.server";

/** What lifting needs of the list: a reader's record, and the owner's unsuppress. */
export interface LiftTarget {
  show(email: string): { page: string | null; suppression?: { at: string } | null } | null;
  unsuppress(email: string): Promise<boolean>;
}

/** Whether the record says an import of `name` suppressed the reader, at that import's own time. */
export function suppressedByImportOf(record: ReturnType<LiftTarget["show"]>, name: string): boolean {
  const match = /^imported (\S+) from (.+?) \(/.exec(record?.page ?? "");
  if (!match || !record?.suppression) return false;
  return match[2] === name && match[1] === record.suppression.at;
}

export async function liftImportSuppressions(options: {
  file: string;
  list: LiftTarget;
  out: { write(text: string): unknown };
}): Promise<number> {
  const { file, list, out } = options;
  // Only the addresses the file says left are kept, read as the file streams by.
  const said = new Map<string, string>();
  try {
    for await (const row of (await openExport(file)).rows) {
      if (row.status.kind === "suppressed") said.set(addressKey(row.address), row.address);
    }
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    out.write(`${error.message}\nNothing lifted.\n`);
    return 2;
  }
  const name = cleanField(path.basename(file));
  let lifted = 0;
  for (const email of said.values()) {
    if (suppressedByImportOf(list.show(email), name) && (await list.unsuppress(email))) lifted += 1;
  }
  const kept = said.size - lifted;
  out.write(
    `${name}: ${plural(lifted, "suppression")} made by importing it lifted; ` +
      `those readers get mail again.${kept > 0 ? ` ${plural(kept, "address", "addresses")} the file said left or bounced ${kept === 1 ? "was" : "were"} not suppressed by its import (or no longer), left as they are.` : ""}\n`,
  );
  return 0;
}
