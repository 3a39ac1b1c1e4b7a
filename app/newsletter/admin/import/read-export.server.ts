/**
 * An export file on disk, read as the import and `unsuppress --import` both need it: its format and its rows. Every
 * way the file cannot be read (missing, too large, no address column) is an ImportFileError with a sentence for the
 * owner, the file's path at its start.
 */
import { stat } from "node:fs/promises";
import { ImportFileError, MAX_FILE_BYTES, tooLarge } from "~/newsletter/admin/import/csv-reader.server";
import { streamCsvRecords } from "~/newsletter/admin/import/csv-stream.server";
import type { DetectedFormat } from "~/newsletter/admin/import/formats.server";
import { formatOf, rowOf, type ImportRow, type ReadExport } from "~/newsletter/admin/import/read-rows.server";

async function fileSize(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ImportFileError(`${file} is not a file.`);
    return info.size;
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ImportFileError(code === "ENOENT" ? `No file at ${file}.` : `Cannot read ${file} (${code}).`);
  }
}

/** The file's format and rows, read as a stream: its text is never held whole. */
export async function readExportFile(file: string): Promise<ReadExport> {
  const size = await fileSize(file);
  if (size > MAX_FILE_BYTES) throw new ImportFileError(tooLarge(file, size));
  let detected: DetectedFormat | null = null;
  const rows: ImportRow[] = [];
  const shared = new Map<string, unknown>();
  for await (const record of streamCsvRecords(file)) {
    if (detected === null) {
      const format = formatOf(record);
      if ("error" in format) throw new ImportFileError(`${file}: ${format.error}`);
      detected = format;
      if (detected.hasHeader) continue;
    }
    rows.push(rowOf(record, detected, shared));
  }
  if (detected === null) throw new ImportFileError(`${file}: The file holds no rows.`);
  return { detected, rows };
}
