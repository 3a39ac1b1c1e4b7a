/**
 * An export file on disk, read as the import and `unsuppress --import` both need it: its format, then its rows one at a
 * time. Every way the file cannot be read (missing, too large, no address column, a row past the limits) is an
 * ImportFileError with a sentence for the owner, the file's path at its start.
 */
import { stat } from "node:fs/promises";
import { ImportFileError, MAX_FILE_BYTES, tooLarge } from "~/newsletter/admin/import/csv-reader.server";
import { streamCsvRecords } from "~/newsletter/admin/import/csv-stream.server";
import type { DetectedFormat } from "~/newsletter/admin/import/formats.server";
import { formatOf, rowOf, type ImportRow } from "~/newsletter/admin/import/read-rows.server";

/** The file's size and last change, to tell that a second reading meets the file the first one read. */
export interface FileStamp {
  size: number;
  modifiedMs: number;
}

export async function stampOf(file: string): Promise<FileStamp> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ImportFileError(`${file} is not a file.`);
    return { size: info.size, modifiedMs: info.mtimeMs };
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ImportFileError(code === "ENOENT" ? `No file at ${file}.` : `Cannot read ${file} (${code}).`);
  }
}

export interface OpenedExport {
  detected: DetectedFormat;
  stamp: FileStamp;
  /** The rows, read from the file as they are asked for: neither the text nor the rows are ever held whole. */
  rows: AsyncGenerator<ImportRow>;
  /** Closes the file when its rows are not read to the end. */
  close(): Promise<void>;
}

/** Reads the file's first record for its format; the rows follow as a stream. */
export async function openExport(file: string): Promise<OpenedExport> {
  const stamp = await stampOf(file);
  if (stamp.size > MAX_FILE_BYTES) throw new ImportFileError(tooLarge(file, stamp.size));
  const records = streamCsvRecords(file);
  const first = await records.next();
  const format = formatOf(first.done ? undefined : first.value);
  if ("error" in format) {
    await records.return(undefined);
    throw new ImportFileError(`${file}: ${format.error}`);
  }
  const detected: DetectedFormat = format;
  async function* rows(): AsyncGenerator<ImportRow> {
    // The statuses and status words a file repeats on every row are kept once (see rowOf).
    const shared = new Map<string, unknown>();
    if (!detected.hasHeader && !first.done) yield rowOf(first.value, detected, shared);
    for await (const record of records) yield rowOf(record, detected, shared);
  }
  return { detected, stamp, rows: rows(), close: async () => void (await records.return(undefined)) };
}
