import { describe, expect, it } from "vitest";
import {
  backupDueAtStart,
  backupFileName,
  backupsToDelete,
  backupTakenAt,
  replacedFileName,
} from "~/newsletter/backup-plan.server";

const BRUSSELS = "Europe/Brussels";

describe("automatic backups: names, the day they count for, retention", () => {
  it("names a backup by its UTC time to the second, and reads the time back", () => {
    const at = new Date("2026-11-23T20:15:07.456Z");
    expect(backupFileName(at)).toBe("newsletter-2026-11-23T201507Z.sqlite");
    expect(backupTakenAt("newsletter-2026-11-23T201507Z.sqlite")).toEqual(new Date("2026-11-23T20:15:07Z"));
    expect(replacedFileName(at)).toBe("replaced-2026-11-23T201507Z.sqlite");
  });

  it.each([
    "subscribers.sqlite",
    "newsletter-2026-11-23.sqlite",
    "newsletter-2026-13-40T999999Z.sqlite",
    "newsletter-2026-11-23T201507Z.sqlite.partial",
    "replaced-2026-11-23T201507Z.sqlite",
  ])("does not take %s for an automatic backup", (name) => {
    expect(backupTakenAt(name)).toBeNull();
  });

  it("owes a backup at start-up unless one was taken that Brussels day", () => {
    const now = new Date("2026-11-23T22:30:00Z"); // 23:30 in Brussels (UTC+1)
    expect(backupDueAtStart([], now, BRUSSELS)).toBe(true);
    expect(backupDueAtStart(["newsletter-2026-11-23T000500Z.sqlite"], now, BRUSSELS)).toBe(false);
    // 23:30 UTC on the 22nd was already the 23rd in Brussels.
    expect(backupDueAtStart(["newsletter-2026-11-22T233000Z.sqlite"], now, BRUSSELS)).toBe(false);
    expect(backupDueAtStart(["newsletter-2026-11-22T223000Z.sqlite"], now, BRUSSELS)).toBe(true);
    // 23:30 UTC on the 23rd is already the 24th in Brussels: a backup from 22:30 UTC counts for the day before.
    const late = new Date("2026-11-23T23:30:00Z");
    expect(backupDueAtStart(["newsletter-2026-11-23T223000Z.sqlite"], late, BRUSSELS)).toBe(true);
    expect(backupDueAtStart(["newsletter-2026-11-23T231000Z.sqlite"], late, BRUSSELS)).toBe(false);
    expect(backupDueAtStart(["my-copy.sqlite"], now, BRUSSELS)).toBe(true);
  });

  it("deletes only automatic backups beyond the newest `keep`", () => {
    const names = [
      "newsletter-2026-11-20T080000Z.sqlite",
      "newsletter-2026-11-23T080000Z.sqlite",
      "my-copy.sqlite",
      "newsletter-2026-11-21T080000Z.sqlite",
      "replaced-2026-11-01T080000Z.sqlite",
      "newsletter-2026-11-22T080000Z.sqlite",
    ];
    expect(backupsToDelete(names, 2)).toEqual([
      "newsletter-2026-11-21T080000Z.sqlite",
      "newsletter-2026-11-20T080000Z.sqlite",
    ]);
    expect(backupsToDelete(names, 7)).toEqual([]);
  });
});
