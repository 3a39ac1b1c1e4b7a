/**
 * An export file on disk, read as the import and `unsuppress --import` both need it: its format and its rows. Every
 * way the file cannot be read (missing, too large, no address column) is an ImportFileError with a sentence for the
 * owner, the file's path at its start.
 */
import { readFile, stat } from "node:fs/promises";
import {
  decodeImportFile,
  ImportFileError,
  MAX_FILE_BYTES,
  parseCsv,
  tooLarge,
} from "~/newsletter/admin/import/csv-reader.server";
import { readRows, type ReadExport } from "~/newsletter/admin/import/read-rows.server";

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

export async function readExportFile(file: string): Promise<ReadExport> {
  const size = await fileSize(file);
  // Checked before reading, so a huge file is never loaded into memory.
  if (size > MAX_FILE_BYTES) throw new ImportFileError(tooLarge(file, size));
  const read = readRows(parseCsv(decodeImportFile(await readFile(file))));
  if ("error" in read) throw new ImportFileError(`${file}: ${read.error}`);
  return read;
}
