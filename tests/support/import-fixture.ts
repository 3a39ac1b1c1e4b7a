// The import's fixtures (tests/fixtures/import/), read the way the command reads a file.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decodeImportFile, parseCsv } from "~/newsletter/admin/import/csv-reader.server";
import { readRows, type ReadExport } from "~/newsletter/admin/import/read-rows.server";

export const importFixture = (name: string) => fileURLToPath(new URL(`../fixtures/import/${name}`, import.meta.url));

export function readFixture(name: string): ReadExport {
  const read = readRows(parseCsv(decodeImportFile(readFileSync(importFixture(name)))));
  if ("error" in read) throw new Error(`${name}: ${read.error}`);
  return read;
}
