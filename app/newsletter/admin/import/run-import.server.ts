/**
 * `npm run subscribers -- import <file> [--dry-run]`: read the file, plan, write (unless a dry run), report. The
 * list is reached only through `ImportTarget`, so the command does not depend on how the list is stored.
 */
import path from "node:path";
import { importConsent, type ImportConsent } from "~/newsletter/admin/import/consent.server";
import { cleanField } from "~/newsletter/admin/import/clean-text";
import { ImportFileError } from "~/newsletter/admin/import/csv-reader.server";
import { ImportBatches, type PendingReader, type WriteAnswer } from "~/newsletter/admin/import/import-batches.server";
import {
  asksTheList,
  emptyPlan,
  FileSurvey,
  stepOf,
  type PlannedReader,
  type Refusal,
} from "~/newsletter/admin/import/plan.server";
import { openExport, type FileStamp, type OpenedExport } from "~/newsletter/admin/import/read-export.server";
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

export type { WriteAnswer };

/** One reader to store: confirmed, or suppressed for `suppression` (the file says they left, bounced or complained). */
export interface ImportWrite {
  reader: ImportReader;
  suppression: ImportSuppressionReason | null;
  consent: ImportConsent;
}

/**
 * What the import needs from the list. Each method may answer at once or by a promise.
 * - `has`: true for every address the list knows in any state — pending, confirmed, suppressed, and one that left if
 *   the list remembers it — so that an imported suppression is never revived by a later import.
 * - `write`: stores a batch of readers, each with its consent record, and answers for each in order (WriteAnswer),
 *   changing nothing for a reader already there. An error is a failure of that row only: it is reported, the others
 *   go on, and the command exits 1; a throw fails the whole batch the same way.
 * A suppressed reader gets no mail of any kind; "unsubscribed" is the list's way of saying the reader left elsewhere.
 */
export interface ImportTarget {
  has(email: string): Promise<boolean> | boolean;
  write(batch: readonly ImportWrite[]): Promise<WriteAnswer[]> | WriteAnswer[];
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
  /** Readers per write (IMPORT_BATCH_ROWS unless a test asks for fewer). */
  batchRows?: number;
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

/** The first reading: the file's format, and what its rows say, before anything is asked or written. */
async function surveyFile(file: string): Promise<{ opened: OpenedExport; survey: FileSurvey }> {
  const opened = await openExport(file);
  const survey = new FileSurvey();
  for await (const row of opened.rows) survey.add(row);
  return { opened, survey };
}

/** The second reading of the file, refused when it is not the file the first one read. */
async function readAgain(file: string, stamp: FileStamp): Promise<OpenedExport> {
  const again = await openExport(file);
  if (again.stamp.size !== stamp.size || again.stamp.modifiedMs !== stamp.modifiedMs) {
    await again.close();
    throw new ImportFileError(`${file} changed while it was being read. Run the import again once it is written.`);
  }
  return again;
}

export async function runImport(options: RunImportOptions): Promise<RunImportResult> {
  const { file, list, now, out } = options;
  let first;
  let again;
  try {
    first = await surveyFile(file);
    const held = !options.dryRun && !options.yes && suppressesMost(first.survey.suppressions(), first.survey.rowCount);
    again = { held, opened: await readAgain(file, first.opened.stamp) };
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    out.write(`${error.message}\nNothing imported.\n`);
    return { exitCode: 2, outcome: null };
  }
  const { survey } = first;
  const { held } = again;
  const { detected } = first.opened;
  const dryRun = options.dryRun || held;
  const name = cleanField(path.basename(file));
  const toWrite = (reader: PendingReader): ImportWrite => ({
    reader: { email: reader.email },
    suppression: reader.reason,
    consent: importConsent({ file: name, format: detected.format, importedAt: now, ...reader }),
  });
  const plan = emptyPlan();
  const failed: WriteFailure[] = [];
  const refusedByStatus: Refusal[] = [];
  const batches = new ImportBatches((batch) => list.write(batch.map(toWrite)), plan, failed, options.batchRows);
  for await (const row of again.opened.rows) {
    const firstRow = survey.firstOf(row);
    if (!firstRow) continue;
    const onList = asksTheList(firstRow.status) && (await list.has(firstRow.reader.email));
    const step = stepOf(firstRow, onList);
    if (step.kind === "known") plan.alreadyOnList += 1;
    else if (step.kind === "refused") refusedByStatus.push(step.refusal);
    else {
      const reason = step.kind === "suppress" ? step.reader.reason : null;
      if (!dryRun) await batches.add({ ...readerOf(step.reader), reason });
      else if (reason) plan.suppressed[reason] += 1;
      else plan.added += 1;
    }
  }
  await batches.flush();
  plan.refused = [...survey.refusedAddresses, ...refusedByStatus].sort((a, b) => a.line - b.line);
  plan.duplicatesInFile = survey.duplicatesInFile;
  const outcome: ImportOutcome = {
    file: name,
    format: detected.format,
    dryRun,
    held,
    rowCount: survey.rowCount,
    plan,
    failed,
  };
  out.write(formatImportReport(outcome));
  return { exitCode: importExitCode(outcome), outcome };
}

/** The reader's own fields (a suppression's reason travels apart). */
const readerOf = ({ line, email, originalDate, statusInFile }: PlannedReader): PlannedReader => ({
  line,
  email,
  originalDate,
  statusInFile,
});
