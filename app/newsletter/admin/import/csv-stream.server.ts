/**
 * An export read as a stream: the file in chunks, decoded as it comes (its encoding told by its first bytes), cut
 * into records at line breaks outside quotes, so no more than one chunk and one unfinished row are held at a time.
 * A 50 MB export is read in the memory of its rows, not of its text.
 */
import { open } from "node:fs/promises";
import {
  guessDelimiter,
  ImportFileError,
  lineBreaks,
  MAX_ROW_CHARS,
  csvRecords,
  utf16Shape,
  type CsvRecord,
} from "~/newsletter/admin/import/csv-reader.server";

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** The encoding of a file from its first bytes: a byte-order mark, UTF-16's shape, else UTF-8. */
function encodingOf(head: Uint8Array): string {
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  return utf16Shape(head) ?? "utf-8";
}

/**
 * Bytes read at a time. Small, and read into one buffer used again and again: a chunk's text and rows then die young,
 * while the rows before them are still being read, instead of outliving V8's young generation and piling up as
 * garbage in the old one (a 64 KiB chunk through a read stream doubled the import's peak memory).
 */
const CHUNK_BYTES = 16 * 1024;

/** The file's text, chunk by chunk. */
async function* decodedChunks(file: string): AsyncGenerator<string> {
  const handle = await open(file, "r");
  try {
    const bytes = Buffer.alloc(CHUNK_BYTES);
    let decoder: TextDecoder | null = null;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = bytes.subarray(0, bytesRead);
      decoder ??= new TextDecoder(encodingOf(chunk));
      yield decoder.decode(chunk, { stream: true });
    }
    if (decoder) yield decoder.decode();
  } finally {
    await handle.close();
  }
}

/** The records of the file at `file`, in order, each with the line it starts on. */
export async function* streamCsvRecords(file: string): AsyncGenerator<CsvRecord> {
  let buffer = "";
  let scanned = 0;
  let inQuotes = false;
  let line = 1;
  let delimiter: string | null = null;
  const flush = (part: string) => {
    delimiter ??= guessDelimiter(part);
    const records = csvRecords(part, delimiter, line);
    line += lineBreaks(part, 0, part.length);
    return records;
  };
  for await (const chunk of decodedChunks(file)) {
    buffer += chunk;
    let cut = -1;
    for (let i = scanned; i < buffer.length; i += 1) {
      const code = buffer.charCodeAt(i);
      if (code === QUOTE) inQuotes = !inQuotes;
      // A CR at the very end may be the first half of a CRLF split across chunks: cut there next time.
      else if (!inQuotes && (code === LF || (code === CR && i + 1 < buffer.length))) cut = i;
    }
    if (cut < 0) {
      scanned = buffer.length;
      if (buffer.length > MAX_ROW_CHARS) {
        throw new ImportFileError(
          `Line ${line}: a row longer than ${MAX_ROW_CHARS / 1024} KB. ` +
            "Is this a subscriber export? (A quote that is never closed also makes one endless row.)",
        );
      }
      continue;
    }
    const part = buffer.slice(0, cut + 1);
    buffer = buffer.slice(cut + 1);
    scanned = buffer.length;
    yield* flush(part);
  }
  if (buffer !== "") yield* flush(buffer);
}
