import { describe, expect, it } from "vitest";
import { checkBackupRows, checkUnsubscribedTokens, rowProblem, storeKey } from "~/newsletter/backups/row-checks.server";
import { showValue } from "~/newsletter/list/sqlite/backup-file.server";

const TOKEN = "0b6c2f0e-8a3d-4c1e-9f2a-1b2c3d4e5f60";
const row = (overrides: Record<string, unknown> = {}) => ({
  email: "reader@example.com",
  createdAt: "2026-11-01T00:00:00.000Z",
  unsubscribeToken: TOKEN,
  ...overrides,
});

describe("a backup's rows, checked as the store would hold them", () => {
  it("takes a row the store itself wrote, and one from before tokens", () => {
    expect(rowProblem(row())).toBeNull();
    expect(rowProblem(row({ unsubscribeToken: null }))).toBeNull();
    expect(rowProblem(row({ createdAt: "2026-11-01T00:00:00Z" }))).toBeNull();
  });

  it.each([
    [{ email: new Uint8Array([1, 2, 3]) }, "its address is a BLOB of 3 bytes, not text"],
    [{ email: 42 }, "its address is the number 42, not text"],
    [{ email: null }, "its address is nothing, not text"],
    [{ email: `${"a".repeat(250)}@example.com` }, "its address is longer than 255 characters"],
    [{ email: "no-at-sign" }, '"no-at-sign" is not an address the sign-up form takes'],
    [{ email: " padded@example.com" }, '" padded@example.com" is not an address the sign-up form takes'],
    [{ email: "ada@gmail" }, '"ada@gmail" is not an address the sign-up form takes'],
    [{ createdAt: "yesterday" }, 'its date, "yesterday", is not a time the store writes'],
    [{ createdAt: 1 }, "its date, the number 1, is not a time the store writes"],
    [
      { unsubscribeToken: TOKEN.toUpperCase() },
      `its unsubscribe token, "${TOKEN.toUpperCase()}", is not of the store's form`,
    ],
    [{ unsubscribeToken: "abc" }, 'its unsubscribe token, "abc", is not of the store\'s form'],
  ])("refuses %o", (overrides, problem) => {
    expect(rowProblem(row(overrides))).toBe(problem);
  });

  it("shows a long value cut short with its length, never whole", () => {
    const shown = showValue("x".repeat(5_000_000));
    expect(shown.length).toBeLessThan(100);
    expect(shown).toContain("(5000000 characters)");
  });

  it("folds letter case the way SQLite's lower() does: ASCII only", () => {
    expect(storeKey("Ada@Example.COM")).toBe("ada@example.com");
    expect(storeKey("Ärger@example.com")).toBe("Ärger@example.com");
  });

  it("refuses one address twice in two letter cases, and one token twice, naming the rows", () => {
    expect(() => checkBackupRows([row(), row({ email: "READER@example.com", unsubscribeToken: null })])).toThrow(
      "1 row the store could not hold (row 2: the address of row 1 again); nothing was changed",
    );
    expect(() => checkBackupRows([row(), row({ email: "other@example.com" })])).toThrow(
      "row 2: the unsubscribe token of row 1 again",
    );
  });

  it("names the first five bad rows and counts the rest", () => {
    const rows = Array.from({ length: 8 }, (_, i) => row({ email: `bad ${i}`, unsubscribeToken: null }));
    expect(() => checkBackupRows(rows)).toThrow(
      /^8 rows the store could not hold \(row 1: .*row 5: [^;]*; and 3 more\)/,
    );
  });

  it("checks only what stops the store from opening a live file, when asked", () => {
    const legacy = [row({ email: "ada@gmail" }), row({ email: "b@example.com", unsubscribeToken: null })];
    expect(checkBackupRows(legacy, { eachRow: false })).toHaveLength(2);
    expect(() =>
      checkBackupRows([...legacy, row({ email: "ADA@gmail", unsubscribeToken: null })], { eachRow: false }),
    ).toThrow("the address of row 1 again");
  });

  it("takes the tokens of readers who left only in the store's form", () => {
    expect(checkUnsubscribedTokens([TOKEN])).toEqual([TOKEN]);
    expect(() => checkUnsubscribedTokens([TOKEN, new Uint8Array([1])])).toThrow(/a BLOB of 1 bytes, not a token/);
  });
});
