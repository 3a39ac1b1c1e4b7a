// A backup's confirmation state and consent record, checked the way the store writes them before a restore carries
// them (a pending reader must never come back confirmed, nor a record point at words the reader never saw).
import { describe, expect, it } from "vitest";
import { checkBackupRows, checkWordings, rowProblem } from "~/newsletter/backups/row-checks.server";
import { CONSENT_WORDING, consentVersion } from "~/newsletter/sign-up/consent.server";

const HASH = "a".repeat(64);
const VERSION = consentVersion(CONSENT_WORDING);
const row = (overrides: Record<string, unknown> = {}) => ({
  email: "reader@example.com",
  createdAt: "2026-11-01T00:00:00.000Z",
  unsubscribeToken: "0b6c2f0e-8a3d-4c1e-9f2a-1b2c3d4e5f60",
  state: "pending",
  confirmedAt: null,
  consentPage: "/",
  consentVersion: VERSION,
  confirmRequestedAt: "2026-11-01T00:00:00.000Z",
  confirmTokenHash: HASH,
  confirmTokenAt: "2026-11-01T00:00:01.000Z",
  ...overrides,
});

describe("a backup row's confirmation state and consent record", () => {
  it("takes what the store writes, and a row from before double opt-in (no such columns)", () => {
    expect(rowProblem(row())).toBeNull();
    expect(
      rowProblem(row({ state: "confirmed", confirmedAt: "2026-11-02T00:00:00.000Z", confirmTokenHash: null })),
    ).toBeNull();
    expect(
      rowProblem({ email: "old@example.com", createdAt: "2026-01-01T00:00:00.000Z", unsubscribeToken: null }),
    ).toBeNull();
  });

  it.each([
    [{ state: "maybe" }, 'its state, "maybe", is neither "pending" nor "confirmed"'],
    [{ state: null }, 'its state, nothing, is neither "pending" nor "confirmed"'],
    [{ confirmRequestedAt: "yesterday" }, 'its confirmRequestedAt, "yesterday", is not a time the store writes'],
    [{ confirmTokenAt: 5 }, "its confirmTokenAt, the number 5, is not a time the store writes"],
    [{ confirmedAt: "2026-11-02T00:00:00.000Z" }, 'it is pending, yet confirmed at "2026-11-02T00:00:00.000Z"'],
    [{ consentPage: "https://elsewhere.example/" }, 'its consent page, "https://elsewhere.example/", is not a path'],
    [{ consentPage: "/a\nb" }, "is not a path on the site"],
    [{ consentVersion: "v1" }, 'its wording version, "v1", is not of the store\'s form'],
    [{ confirmTokenHash: HASH.toUpperCase() }, "its confirmation token hash"],
    [{ confirmTokenHash: new Uint8Array(32) }, "its confirmation token hash, a BLOB of 32 bytes, is not of"],
  ])("refuses %o", (overrides, problem) => {
    expect(rowProblem(row(overrides))).toContain(problem);
  });

  it("refuses one confirmation token hash on two rows (the store's index holds each once)", () => {
    const other = row({ email: "other@example.com", unsubscribeToken: null });
    expect(() => checkBackupRows([row(), other])).toThrow("row 2: the confirmation token hash of row 1 again");
    expect(checkBackupRows([row(), { ...other, confirmTokenHash: null }])).toHaveLength(2);
  });
});

describe("a backup's consent wordings", () => {
  const wording = { version: VERSION, wording: CONSENT_WORDING, firstUsedAt: "2026-11-01T00:00:00.000Z" };

  it("takes a wording whose version is its digest", () => {
    expect(checkWordings([wording])).toEqual([wording]);
  });

  it("refuses words that are not the ones their version names, and a bad first use", () => {
    expect(() => checkWordings([{ ...wording, wording: "Something else" }])).toThrow(
      `a consent wording whose version, "${VERSION}", is not the digest of its text; nothing was changed`,
    );
    expect(() => checkWordings([{ ...wording, firstUsedAt: "soon" }])).toThrow(
      'a consent wording first used at "soon", not a time the store writes',
    );
    expect(() => checkWordings([{ ...wording, wording: null }])).toThrow("a consent wording that is nothing, not text");
  });
});
