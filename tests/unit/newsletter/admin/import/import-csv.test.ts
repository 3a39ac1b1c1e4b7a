import { describe, expect, it } from "vitest";
import {
  decodeImportFile,
  guessDelimiter,
  ImportFileError,
  MAX_FILE_BYTES,
  MAX_ROW_CHARS,
  parseCsv,
} from "~/newsletter/admin/import/csv-reader.server";

const fields = (text: string) => parseCsv(text).map((record) => record.fields);

describe("the import's CSV reader (RFC 4180)", () => {
  it("splits rows and fields, with CRLF, LF or a lone CR at the ends of lines", () => {
    expect(fields("a,b\r\nc,d\r\n")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(fields("a,b\nc,d")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(fields("a,b\rc,d\r")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  it("reads quoted fields holding separators, doubled quotes and line breaks, and counts lines as an editor does", () => {
    const records = parseCsv('email,note\r\n"ada@example.com","one, ""two""\r\nthree"\r\nbob@example.com,x\r\n');
    expect(records).toEqual([
      { line: 1, fields: ["email", "note"] },
      { line: 2, fields: ["ada@example.com", 'one, "two"\r\nthree'] },
      { line: 4, fields: ["bob@example.com", "x"] },
    ]);
  });

  it("counts a lone CR inside a quoted field as a line, and keeps a trailing empty field", () => {
    expect(parseCsv('email,note\r"a@example.com","x\ry"\rb@example.com,\r')).toEqual([
      { line: 1, fields: ["email", "note"] },
      { line: 2, fields: ["a@example.com", "x\ry"] },
      { line: 4, fields: ["b@example.com", ""] },
    ]);
  });

  it("drops a byte-order mark and leaves out rows with nothing in them, counting their lines", () => {
    expect(parseCsv("\uFEFFemail\n\n , \n,\nada@example.com\n")).toEqual([
      { line: 1, fields: ["email"] },
      { line: 3, fields: [" ", " "] },
      { line: 5, fields: ["ada@example.com"] },
    ]);
  });

  it("keeps empty fields, and text after a closing quote or a quote inside a bare field as written", () => {
    expect(fields('a,,c,\n"x"y,b"c')).toEqual([
      ["a", "", "c", ""],
      ["xy", 'b"c'],
    ]);
  });

  it("refuses a quote that never closes, naming the line where it opens", () => {
    expect(() => parseCsv('email\nada@example.com\n"bob@example.com,x\n')).toThrow(
      new ImportFileError("Line 3: a quoted field is never closed."),
    );
  });

  it("refuses a row over 64 KB, but takes one just under", () => {
    const near = "x".repeat(MAX_ROW_CHARS - 10);
    expect(fields(`email\n${near}\n`)[1]?.[0]).toHaveLength(MAX_ROW_CHARS - 10);
    expect(() => parseCsv(`email\nada@example.com\n${"x".repeat(MAX_ROW_CHARS + 1)}\n`)).toThrow(
      /^Line 3: a row longer than 64 KB/,
    );
  });

  it("takes the separator from the first line: comma, else semicolon, else tab", () => {
    expect(guessDelimiter('email,"a;b"\n')).toBe(",");
    expect(guessDelimiter('"Email; Address";Name\n')).toBe(";");
    expect(guessDelimiter("email\tname\n")).toBe("\t");
    expect(guessDelimiter("ada@example.com\n")).toBe(",");
    expect(fields("Email Address;Name\nada@example.com;Ada, Countess\n")).toEqual([
      ["Email Address", "Name"],
      ["ada@example.com", "Ada, Countess"],
    ]);
  });
});

describe("the import file's bytes", () => {
  const utf16le = (text: string) => {
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i += 1) bytes.set([text.charCodeAt(i) & 0xff, text.charCodeAt(i) >> 8], 2 + i * 2);
    return bytes;
  };

  it("reads UTF-8 with or without a byte-order mark, and UTF-16 with one (Excel's Unicode text)", () => {
    const text = "email\tname\r\nada@example.com\tAda\r\n";
    expect(decodeImportFile(new TextEncoder().encode(`\uFEFF${text}`))).toBe(text);
    expect(decodeImportFile(new TextEncoder().encode(text))).toBe(text);
    expect(fields(decodeImportFile(utf16le(text)))).toEqual([
      ["email", "name"],
      ["ada@example.com", "Ada"],
    ]);
  });

  it("reads bytes that are not UTF-8 as U+FFFD rather than refusing the file", () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode("email,name\nada@example.com,Ren"), 0xe9, 0x0a]);
    expect(fields(decodeImportFile(latin1))[1]).toEqual(["ada@example.com", "Ren\uFFFD"]);
  });

  it("refuses a file over 50 MB with its size", () => {
    expect(() => decodeImportFile(new Uint8Array(MAX_FILE_BYTES + 1))).toThrow(
      `The file is larger than 50 MB (${MAX_FILE_BYTES + 1} bytes), the most the import reads.`,
    );
  });
});
