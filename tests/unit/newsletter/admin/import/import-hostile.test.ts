// Files that are not what they claim, read the way the command reads them: control characters never reach what the
// list keeps or the owner's terminal, a date no sign-up can have refuses its row (named by its line), and UTF-16
// without a byte-order mark is read by its shape.
import { describe, expect, it } from "vitest";
import { cleanField } from "~/newsletter/admin/import/clean-text";
import { decodeImportFile, parseCsv, utf16Shape } from "~/newsletter/admin/import/csv-reader.server";
import { originalDateProblem, parseOriginalDate } from "~/newsletter/admin/import/original-date.server";
import { readRows, type ReadExport } from "~/newsletter/admin/import/read-rows.server";
import { planRows } from "../../../../support/import-plan";

const read = (bytes: Uint8Array): ReadExport => {
  const result = readRows(parseCsv(decodeImportFile(bytes)));
  if ("error" in result) throw new Error(result.error);
  return result;
};
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("control characters and long cells", () => {
  it("a status header and cell holding a CR or an escape are kept as plain words", () => {
    const file =
      'email,"sta\rtus",created_at\nada@example.com,"unsubscribed\r",2021-03-04\nhedy@example.com,"left\u001b[2J",2021-03-04\n';
    const { rows } = read(utf8(file));
    expect(rows[0]?.status).toMatchObject({ kind: "suppressed", reason: "unsubscribed" });
    expect(rows[0]?.statusInFile).toBe('sta tus "unsubscribed"');
    // An unknown word is named in the report, its escape sequence made harmless.
    expect(rows[1]?.status).toEqual({
      kind: "refused",
      reason: 'sta tus "left [2J" is not a status this import knows',
    });
    for (const row of rows) expect(JSON.stringify(row)).not.toMatch(/\\r|\\u001b/);
  });

  it("bounds what it keeps of a cell", () => {
    expect(Array.from(cleanField("x".repeat(5000)))).toHaveLength(100);
    const { rows } = read(utf8(`email,status\nada@example.com,${"y".repeat(5000)}\n`));
    expect(rows[0]?.status.kind).toBe("refused");
    expect((rows[0]?.status as { reason: string }).reason.length).toBeLessThan(200);
  });
});

describe("sign-up dates", () => {
  it("refuses a row whose date no sign-up can have, naming its line", () => {
    const file = [
      "email,created_at",
      "ada@example.com,2021-03-04T10:15:00Z",
      "grace@example.com,9999-12-31 23:59:59 -99:99",
      "linus@example.com,1901-01-01T00:00:00Z",
      "ken@example.com,sometime in 2020",
    ].join("\n");
    const plan = planRows(read(utf8(file)).rows, () => false);
    expect(plan.add.map((r) => [r.line, r.email, r.originalDate])).toEqual([
      [2, "ada@example.com", "2021-03-04T10:15:00.000Z"],
      [5, "ken@example.com", null],
    ]);
    expect(plan.refused).toEqual([
      {
        line: 3,
        text: "grace@example.com",
        reason: 'sign-up date "9999-12-31 23:59:59 -99:99" has no real time zone',
      },
      { line: 4, text: "linus@example.com", reason: 'sign-up date "1901-01-01T00:00:00Z" is outside 1970 to today' },
    ]);
  });

  it("takes no date from the future or before 1970", () => {
    const now = new Date("2026-11-27T00:00:00Z");
    expect(parseOriginalDate("9999-12-31 23:59:59", now)).toBeNull();
    expect(originalDateProblem("9999-12-31 23:59:59", now)).toContain("outside 1970 to today");
    expect(parseOriginalDate("2026-11-27 12:00:00", now)).toBe("2026-11-27T12:00:00.000Z");
    expect(originalDateProblem("2021-02-31", now)).toBeNull();
  });
});

describe("UTF-16 without a byte-order mark", () => {
  const text = "email,status\nada@example.com,active\nhedy@example.com,unsubscribed\n";
  const utf16 = (littleEndian: boolean) => {
    const bytes = new Uint8Array(text.length * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < text.length; i += 1) view.setUint16(2 * i, text.charCodeAt(i), littleEndian);
    return bytes;
  };

  it.each([
    ["little-endian", true, "utf-16le"],
    ["big-endian", false, "utf-16be"],
  ] as const)("reads %s by its shape", (_label, littleEndian, encoding) => {
    const bytes = utf16(littleEndian);
    expect(utf16Shape(bytes)).toBe(encoding);
    const { detected, rows } = read(bytes);
    expect(detected.emailIndex).toBe(0);
    expect(rows.map((row) => [row.address, row.status.kind])).toEqual([
      ["ada@example.com", "active"],
      ["hedy@example.com", "suppressed"],
    ]);
  });

  it("leaves UTF-8 to UTF-8", () => {
    expect(utf16Shape(utf8(text))).toBeNull();
  });
});
