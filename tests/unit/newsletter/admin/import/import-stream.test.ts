// The streamed reader against the whole-text one, on files whose rows cross the reader's chunks: quoted fields with
// separators and line breaks, CRLF split between two chunks, UTF-16 and a UTF-8 byte-order mark.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ImportFileError, parseCsv, type CsvRecord } from "~/newsletter/admin/import/csv-reader.server";
import { streamCsvRecords } from "~/newsletter/admin/import/csv-stream.server";

const dir = mkdtempSync(path.join(tmpdir(), "import-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function streamed(name: string, bytes: Uint8Array): Promise<CsvRecord[]> {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  const records: CsvRecord[] = [];
  for await (const record of streamCsvRecords(file)) records.push(record);
  return records;
}

function sample(rows: number, eol: string): string {
  const lines = ["email,note,created_at"];
  for (let i = 0; i < rows; i += 1) {
    const note = i % 7 === 0 ? `"said ""hi"",${eol}then left"` : i % 5 === 0 ? `"a, b"` : "plain";
    lines.push(`reader${i}@example.com,${note},2021-03-04T10:15:00Z`);
  }
  return lines.join(eol) + eol;
}

describe("streamCsvRecords", () => {
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("reads %s files across chunks exactly as the whole text, lines and all", async (_label, eol) => {
    // About 1 MB: several of the reader's chunks, so rows and CRLFs fall across their edges.
    const text = sample(20_000, eol);
    expect(await streamed(`sample-${_label}.csv`, new TextEncoder().encode(`\uFEFF${text}`))).toEqual(parseCsv(text));
  });

  it("reads UTF-16 little-endian with its byte-order mark", async () => {
    const text = sample(3_000, "\n");
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    expect(await streamed("utf16.csv", bytes)).toEqual(parseCsv(text));
  });

  it("refuses a quote that never closes, however long the file", async () => {
    const text = `email,note\nada@example.com,"open${"x".repeat(200_000)}\n`;
    const reading = streamed("open-quote.csv", new TextEncoder().encode(text));
    await expect(reading).rejects.toBeInstanceOf(ImportFileError);
  });
});
