/**
 * `npm run subscribers -- import <file> [--dry-run]`: read the file, plan, write (unless a dry run), report. The
 * list is reached only through `ImportTarget`, so the command does not depend on how the list is stored.
 */
import path from "node:path";
import { importConsent, type ImportConsent } from "~/newsletter/admin/import/consent.server";
import { cleanField } from "~/newsletter/admin/import/clean-text";
import { ImportFileError } from "~/newsletter/admin/import/csv-reader.server";
import { addressKey, planImport, type ImportPlan } from "~/newsletter/admin/import/plan.server";
import { readExportFile } from "~/newsletter/admin/import/read-export.server";
import type { ImportRow } from "~/newsletter/admin/import/read-rows.server";
import {
  formatImportReport,
  importExitCode,
  suppressesMost,
  type ImportOutcome,
  type WriteFailure,
} from "~/newsletter/admin/import/report.server";
import type { ImportSuppressionReason } from "~/newsletter/admin/import/status.server";

export interface ImportReader {
  /** The address as the file writes it (trimmed); the list compares addresses without letter case. */
  email: string;
}

/**
 * What the import needs from the list. Each method may answer at once or by a promise.
 * - `has`: true for every address the list knows in any state — pending, confirmed, suppressed, and one that left if
 *   the list remembers it — so that an imported suppression is never revived by a later import.
 * - `addConfirmed` / `addSuppressed`: store a new reader with this consent record; answer false, without changing
 *   anything, when the address is already there (someone signed up since `has` was asked). A throw is a failure of
 *   that row only: it is reported, the others go on, and the command exits 1.
 * A suppressed reader gets no mail of any kind; "unsubscribed" is the list's way of saying the reader left elsewhere.
 */
export interface ImportTarget {
  has(email: string): Promise<boolean> | boolean;
  /** Every address the list knows, lower-cased, in one read, where the list can (a long file then asks nothing more). */
  known?(): Promise<Set<string>> | Set<string>;
  addConfirmed(reader: ImportReader, consent: ImportConsent): Promise<boolean> | boolean;
  addSuppressed(
    reader: ImportReader,
    reason: ImportSuppressionReason,
    consent: ImportConsent,
  ): Promise<boolean> | boolean;
}

export interface RunImportOptions {
  /** The file's path, as the owner typed it. */
  file: string;
  dryRun: boolean;
  /** Write even a file that would suppress more than half its rows. */
  yes?: boolean;
  list: ImportTarget;
  /** The import's time, written in every record. */
  now: Date;
  /** Where the report goes (the command passes stderr: stdout is kept for data). */
  out: { write(text: string): unknown };
}

export interface RunImportResult {
  /**
   * 0: every row accounted for; 1: some rows could not be written; 2: the file was refused as a whole; 3: it would
   * suppress more than half its rows, and nothing was written without --yes.
   */
  exitCode: number;
  /** Null when the file was refused as a whole. */
  outcome: ImportOutcome | null;
}

/** The addresses of `rows` the list knows, lower-cased: in one read where the list can, else one question each. */
async function knownAddresses(list: ImportTarget, rows: readonly ImportRow[]): Promise<Set<string>> {
  if (list.known) return list.known();
  // One question per address (any letter case), and none for a cell that cannot be an address.
  const asked = new Map(
    rows.filter((row) => row.address.includes("@")).map((row) => [addressKey(row.address), row.address]),
  );
  const known = new Set<string>();
  for (const email of asked.values()) if (await list.has(email)) known.add(addressKey(email));
  return known;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function write(
  plan: ImportPlan,
  list: ImportTarget,
  consentOf: (r: { originalDate: string | null; statusInFile: string | null }) => ImportConsent,
): Promise<{ plan: ImportPlan; failed: WriteFailure[] }> {
  const written: ImportPlan = { ...plan, add: [], suppressAdd: [], alreadyOnList: [...plan.alreadyOnList] };
  const failed: WriteFailure[] = [];
  const attempt = async (reader: { line: number; email: string }, store: () => Promise<boolean> | boolean) => {
    try {
      if (await store()) return true;
      written.alreadyOnList.push({ line: reader.line, email: reader.email });
    } catch (error) {
      failed.push({ line: reader.line, email: reader.email, error: errorText(error) });
    }
    return false;
  };
  for (const reader of plan.add) {
    if (await attempt(reader, () => list.addConfirmed({ email: reader.email }, consentOf(reader)))) {
      written.add.push(reader);
    }
  }
  for (const reader of plan.suppressAdd) {
    const store = () => list.addSuppressed({ email: reader.email }, reader.reason, consentOf(reader));
    if (await attempt(reader, store)) written.suppressAdd.push(reader);
  }
  written.alreadyOnList.sort((a, b) => a.line - b.line);
  return { plan: written, failed };
}

export async function runImport(options: RunImportOptions): Promise<RunImportResult> {
  const { file, list, now, out } = options;
  let read;
  try {
    read = await readExportFile(file);
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    out.write(`${error.message}\nNothing imported.\n`);
    return { exitCode: 2, outcome: null };
  }
  const { detected, rows } = read;
  const known = await knownAddresses(list, rows);
  const planned = planImport(rows, (email) => known.has(addressKey(email)));
  const name = cleanField(path.basename(file));
  const consentOf = (reader: { originalDate: string | null; statusInFile: string | null }) =>
    importConsent({ file: name, format: detected.format, importedAt: now, ...reader });
  const held = !options.dryRun && !options.yes && suppressesMost(planned, rows.length);
  const dryRun = options.dryRun || held;
  const { plan, failed } = dryRun ? { plan: planned, failed: [] } : await write(planned, list, consentOf);
  const outcome: ImportOutcome = {
    file: name,
    format: detected.format,
    dryRun,
    held,
    rowCount: rows.length,
    plan,
    failed,
  };
  out.write(formatImportReport(outcome));
  return { exitCode: importExitCode(outcome), outcome };
}
