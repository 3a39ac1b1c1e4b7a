/**
 * A small RFC 4180 reader for the subscriber exports the import takes. Written here rather than taken from the
 * registry because the job is narrow (a few columns of a few files) and the limits are ours: a file or a row past
 * them is refused whole with a sentence the owner can act on, never read half-way.
 */

/** Room for any personal newsletter: Mailchimp's export, the widest, holds about 230,000 readers in 47 MB. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** One row of an export is a few hundred characters; 64 KB means the file is not what it claims to be. */
export const MAX_ROW_CHARS = 64 * 1024;

/** A file the import refuses as a whole: the message is shown to the owner as it is. */
export class ImportFileError extends Error {
  override name = "ImportFileError";
}

export interface CsvRecord {
  /** The file's line on which the record starts (1-based), as a text editor counts them. */
  line: number;
  fields: string[];
}

const MB = 1024 * 1024;

/** The sentence for a file over the limit; `what` names it ("The file", or its path). */
export const tooLarge = (what: string, bytes: number) =>
  `${what} is larger than ${MAX_FILE_BYTES / MB} MB (${bytes} bytes), the most the import reads.`;

/**
 * The text of an export: UTF-8 with or without a byte-order mark, or UTF-16 with one (Excel's "Unicode text").
 * Bytes that are not UTF-8 become U+FFFD rather than refusing the file: they can only sit in names, which the import
 * does not keep, while an address with one is refused by the address rule.
 */
export function decodeImportFile(bytes: Uint8Array): string {
  if (bytes.byteLength > MAX_FILE_BYTES) {
    throw new ImportFileError(tooLarge("The file", bytes.byteLength));
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  const shape = utf16Shape(bytes);
  if (shape) return new TextDecoder(shape).decode(bytes);
  // TextDecoder drops a UTF-8 byte-order mark itself.
  return new TextDecoder("utf-8").decode(bytes);
}

/**
 * UTF-16 without a byte-order mark, told by its shape: an export's header and addresses are ASCII, so in UTF-16 every
 * other byte of its start is zero (the second of each pair little-endian, the first big-endian). UTF-8 text has no
 * zero bytes at all.
 */
export function utf16Shape(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
  const pairs = Math.min(256, Math.floor(bytes.byteLength / 2));
  if (pairs < 2) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs; i += 1) {
    if (bytes[2 * i] === 0) evenZeros += 1;
    if (bytes[2 * i + 1] === 0) oddZeros += 1;
  }
  // Nine in ten: a name or two in another script may fill both bytes of a pair.
  if (oddZeros >= pairs * 0.9 && evenZeros === 0) return "utf-16le";
  if (evenZeros >= pairs * 0.9 && oddZeros === 0) return "utf-16be";
  return null;
}

/**
 * The separator of the file, read from its first line outside quotes: a comma unless that line has none and has
 * semicolons (a spreadsheet saved in a locale that writes decimal commas) or tabs.
 */
export function guessDelimiter(text: string): string {
  let inQuotes = false;
  const counts = { ",": 0, ";": 0, "\t": 0 };
  for (const char of text) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === "\n" || char === "\r")) break;
    else if (!inQuotes && char in counts) counts[char as keyof typeof counts] += 1;
  }
  if (counts[","] > 0) return ",";
  if (counts[";"] > 0) return ";";
  return counts["\t"] > 0 ? "\t" : ",";
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** The line breaks in text[from, to): CRLF, LF or a lone CR each count once. */
export function lineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i += 1) {
    const code = text.charCodeAt(i);
    if (code === LF || (code === CR && text.charCodeAt(i + 1) !== LF)) count += 1;
  }
  return count;
}

/**
 * The records of a CSV text. Quoted fields may hold separators, doubled quotes and line breaks; lines end in CRLF,
 * LF or a lone CR. Rows with nothing in them are left out (they hold no address to report). A quote that opens a
 * field and never closes refuses the file, since everything after it would be read as one field. The scan slices
 * fields out of the text rather than building them a character at a time: it reads a 47 MB export in the time a
 * naive split on line breaks and commas takes.
 */
export function parseCsv(input: string, delimiter = guessDelimiter(input), firstLine = 1): CsvRecord[] {
  return [...csvRecords(input, delimiter, firstLine)];
}

/**
 * The records of a CSV text one at a time, as parseCsv reads them: a long text's records are never all alive at once,
 * so each dies young (a whole chunk's records kept while they are read would outlive the young generation, and
 * the old one would swell with them).
 */
export function* csvRecords(input: string, delimiter = guessDelimiter(input), firstLine = 1): Generator<CsvRecord> {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  if (text.length > MAX_FILE_BYTES) throw new ImportFileError(tooLarge("The file", text.length));
  const separator = delimiter.charCodeAt(0);
  const length = text.length;
  let line = firstLine;
  let i = 0;

  // The end of the bare text that starts at `from`: the next separator or line break.
  const bareEnd = (from: number) => {
    let end = from;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (code === separator || code === CR || code === LF) break;
      end += 1;
    }
    return end;
  };

  while (i < length) {
    const recordLine = line;
    const recordStart = i;
    const fields: string[] = [];
    for (;;) {
      let field = "";
      if (text.charCodeAt(i) === QUOTE) {
        let from = i + 1;
        for (;;) {
          const close = text.indexOf('"', from);
          if (close < 0) throw new ImportFileError(`Line ${recordLine}: a quoted field is never closed.`);
          field += text.slice(from, close);
          if (text.charCodeAt(close + 1) !== QUOTE) {
            line += lineBreaks(text, i, close);
            i = close + 1;
            break;
          }
          field += '"';
          from = close + 2;
        }
      }
      // Text after a closing quote, or a quote inside a bare field, is kept as written: lenient where RFC 4180 is
      // strict, because an address is checked on its own afterwards.
      const end = bareEnd(i);
      field += text.slice(i, end);
      fields.push(field);
      i = end;
      if (i < length && text.charCodeAt(i) === separator) {
        i += 1;
        continue;
      }
      break;
    }
    if (i - recordStart > MAX_ROW_CHARS) {
      throw new ImportFileError(
        `Line ${recordLine}: a row longer than ${MAX_ROW_CHARS / 1024} KB. ` +
          "Is this a subscriber export? (A quote that is never closed also makes one endless row.)",
      );
    }
    if (i < length) {
      i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line += 1;
    }
    if (fields.some((value) => value !== "")) yield { line: recordLine, fields };
  }
}
