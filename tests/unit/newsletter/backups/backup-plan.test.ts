import { describe, expect, it } from "vitest";
import {
  backupDueAtStart,
  backupFileName,
  backupSpaceProblem,
  backupsToDelete,
  backupTakenAt,
  newestFirst,
  replacedFileName,
  stalePartials,
} from "~/newsletter/backups/backup-plan.server";

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

describe("the backup folder: its order, a crash's scraps, the room a copy leaves", () => {
  const at = (iso: string) => new Date(iso);

  it("lists newest first by the time in the name, whatever its kind, else by the file's own time", () => {
    const files = [
      { name: "newsletter-2026-11-23T080000Z.sqlite", modified: at("2026-11-23T08:00:01Z") },
      // Set aside by a restore after the 23rd's backup, before the 24th's.
      { name: "replaced-2026-11-23T120000Z.sqlite", modified: at("2026-11-23T12:00:00Z") },
      { name: "newsletter-2026-11-24T080000Z.sqlite", modified: at("2026-11-24T08:00:01Z") },
      // Copied back onto the machine today: its name, not the copy's time, says how old it is.
      { name: "newsletter-2026-11-01T080000Z.sqlite", modified: at("2026-11-25T09:00:00Z") },
      { name: "replaced-2026-10-30T080000Z.sqlite", modified: at("2026-10-30T08:00:00Z") },
      // The owner's own copy: its modification time.
      { name: "before-the-move.sqlite", modified: at("2026-11-23T10:00:00Z") },
    ];
    expect(newestFirst(files).map((file) => file.name)).toEqual([
      "newsletter-2026-11-24T080000Z.sqlite",
      "replaced-2026-11-23T120000Z.sqlite",
      "before-the-move.sqlite",
      "newsletter-2026-11-23T080000Z.sqlite",
      "newsletter-2026-11-01T080000Z.sqlite",
      "replaced-2026-10-30T080000Z.sqlite",
    ]);
  });

  it("deletes an automatic backup's scraps, never anyone else's, however old", () => {
    const justNow = at("2026-11-23T07:59:00Z");
    const longAgo = at("2026-11-20T08:00:00Z");
    const files = [
      { name: ".newsletter-2026-11-22T080000Z.sqlite.partial", modified: justNow },
      { name: ".newsletter-2026-11-22T080000Z.sqlite.partial-journal", modified: justNow },
      { name: ".my-copy.sqlite.partial", modified: justNow },
      { name: ".replaced-2026-11-23T075900Z.sqlite.partial", modified: justNow },
      { name: ".old-copy.sqlite.partial", modified: longAgo },
      { name: ".old-copy.sqlite.partial-wal", modified: longAgo },
      { name: "newsletter-2026-11-21T080000Z.sqlite", modified: longAgo },
      { name: "notes.partial.txt", modified: longAgo },
    ];
    expect(stalePartials(files)).toEqual([
      ".newsletter-2026-11-22T080000Z.sqlite.partial",
      ".newsletter-2026-11-22T080000Z.sqlite.partial-journal",
    ]);
  });

  it("refuses a copy that would leave less than the reserve free, and says how much there is", () => {
    const MiB = 1024 * 1024;
    expect(backupSpaceProblem("/backups", 20 * MiB, 4 * MiB, 16 * MiB)).toBeNull();
    expect(backupSpaceProblem("/backups", 20 * MiB - 1, 4 * MiB, 16 * MiB)).toBe(
      "/backups has 20479 KiB free; a copy needs 20480 KiB",
    );
    // A disk with room for the copy itself but not the reserve: the copy would leave DATA_DIR's disk full.
    expect(backupSpaceProblem("/data/backups", 5 * MiB, 4 * MiB, 16 * MiB)).toMatch(/has 5120 KiB free/);
  });
});
