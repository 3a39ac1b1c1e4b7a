// The embedded store's automatic backups on real files: the schedule under a fake clock (no day of waiting),
// retention, a failing backup folder, a full disk (restoring: backups-restore.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BACKUP_INTERVAL_MS } from "~/newsletter/backups/backup-plan.server";
import {
  type BackupSettings,
  readBackup,
  startAutomaticBackups,
  writeBackup,
} from "~/newsletter/backups/automatic-backups.server";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { emailsInFile } from "../../../support/newsletter/http";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
let dataDir: string;
let backupDir: string;
const open: SqliteList[] = [];
const stops: (() => Promise<void>)[] = [];

function openStore() {
  const store = openSqliteList(dataDir);
  open.push(store);
  return store;
}

const settings = (overrides: Partial<BackupSettings> = {}): BackupSettings => ({
  dir: backupDir,
  keep: 7,
  timeZone: "Europe/Brussels",
  ...overrides,
});

function start(store: SqliteList, options: Partial<BackupSettings> = {}) {
  const stop = startAutomaticBackups(store, settings(options));
  stops.push(stop);
  return stop;
}

const files = (folder = backupDir) => (existsSync(folder) ? readdirSync(folder).sort() : []);

/** The schedule's log lines ("Newsletter backup …", made or failed), as the mocked console receives them. */
const backupLines: string[] = [];
let lineLogged: (() => void) | undefined;
function noteLine(line: unknown) {
  if (!String(line).startsWith("Newsletter backup")) return;
  backupLines.push(String(line));
  lineLogged?.();
}

/**
 * Waits until the schedule has logged `count` backups (made or failed): on the log line itself, since a copy runs on
 * libuv's thread pool, which fake timers do not drive and a busy machine may take its time over.
 */
async function backupsLogged(count: number) {
  while (backupLines.length < count) {
    await new Promise<void>((resolve) => (lineLogged = resolve));
  }
  lineLogged = undefined;
  expect(backupLines).toHaveLength(count);
}

const emailsIn = emailsInFile;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "newsletter-backups-"));
  dataDir = path.join(dir, "data");
  backupDir = path.join(dataDir, "backups");
  backupLines.length = 0;
  vi.spyOn(console, "info").mockImplementation(noteLine);
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const store of open.splice(0)) store.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("automatic backups", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    vi.setSystemTime(new Date("2026-11-23T08:00:00Z"));
  });

  it("makes one at start-up, then one every 24 hours, each a consistent copy that holds the list", async () => {
    const store = openStore();
    await store.signUp("first@example.com", withoutMail());
    start(store);
    await vi.advanceTimersByTimeAsync(10);
    await backupsLogged(1);
    expect(files()).toEqual(["newsletter-2026-11-23T080000Z.sqlite"]);
    expect(readBackup(path.join(backupDir, files()[0]!)).map((row) => row.email)).toEqual(["first@example.com"]);
    await store.signUp("second@example.com", withoutMail());
    await vi.advanceTimersByTimeAsync(BACKUP_INTERVAL_MS);
    await backupsLogged(2);
    expect(files()).toEqual(["newsletter-2026-11-23T080000Z.sqlite", "newsletter-2026-11-24T080000Z.sqlite"]);
    expect(emailsIn(path.join(backupDir, files()[1]!))).toEqual(["first@example.com", "second@example.com"]);
    // Never a half-written file under a backup's name: no temporary file is left either.
    expect(files().every((name) => name.endsWith(".sqlite"))).toBe(true);
  });

  it("makes none at start-up when that Brussels day has one, and one on a start the next day", async () => {
    const store = openStore();
    const stop = start(store);
    await vi.advanceTimersByTimeAsync(10);
    await stop();
    expect(files()).toHaveLength(1);
    vi.setSystemTime(new Date("2026-11-23T22:59:00Z")); // 23:59 in Brussels: the same day
    const again = start(store);
    await vi.advanceTimersByTimeAsync(10);
    await again();
    expect(files()).toHaveLength(1);
    vi.setSystemTime(new Date("2026-11-23T23:01:00Z")); // 00:01 in Brussels: the next day
    start(store);
    await vi.advanceTimersByTimeAsync(10);
    await backupsLogged(2);
    expect(files()).toEqual(["newsletter-2026-11-23T080000Z.sqlite", "newsletter-2026-11-23T230100Z.sqlite"]);
  });

  it("keeps the newest BACKUP_KEEP automatic backups and never touches the owner's own files", async () => {
    mkdirSync(backupDir, { recursive: true });
    writeFileSync(path.join(backupDir, "my-copy.sqlite"), "the owner's");
    const store = openStore();
    start(store, { keep: 3 });
    await vi.advanceTimersByTimeAsync(5 * BACKUP_INTERVAL_MS + 10);
    // Six fell due while the first was being copied: each followed the one before, named for when it fell due.
    await backupsLogged(6);
    expect(files()).toEqual([
      "my-copy.sqlite",
      "newsletter-2026-11-26T080000Z.sqlite",
      "newsletter-2026-11-27T080000Z.sqlite",
      "newsletter-2026-11-28T080000Z.sqlite",
    ]);
  });

  it("deletes the partial copies a crash left before it copies, but never the owner's", async () => {
    mkdirSync(backupDir, { recursive: true });
    const crashed = [
      ".newsletter-2026-11-22T080000Z.sqlite.partial",
      ".newsletter-2026-11-22T080000Z.sqlite.partial-journal",
    ];
    const ownersOld = ".my-copy.sqlite.partial";
    const ownersNow = ".copy-under-way.sqlite.partial";
    for (const name of [...crashed, ownersOld, ownersNow]) writeFileSync(path.join(backupDir, name), "half a copy");
    // Nothing has written to this one for two hours (the fake clock's now is 08:00).
    const twoHoursAgo = new Date("2026-11-23T06:00:00Z");
    utimesSync(path.join(backupDir, ownersOld), twoHoursAgo, twoHoursAgo);
    utimesSync(path.join(backupDir, ownersNow), new Date(), new Date());
    start(openStore());
    await vi.advanceTimersByTimeAsync(10);
    await backupsLogged(1);
    expect(files()).toEqual([ownersNow, ownersOld, "newsletter-2026-11-23T080000Z.sqlite"]);
    expect(String(vi.mocked(console.info).mock.calls.at(-1)![0])).toContain("deleted 2 partial file(s) a crash left");
  });

  it("logs a failed backup in one line, and the store goes on taking sign-ups and answering healthy", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(noteLine);
    const store = openStore();
    writeFileSync(backupDir, "a file where the backup folder should be");
    start(store);
    await vi.advanceTimersByTimeAsync(10);
    await backupsLogged(1);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]![0])).toMatch(/^Newsletter backup failed, sign-ups go on \(.+\); next try/);
    expect(String(errors.mock.calls[0]![0])).not.toContain("\n");
    expect(store.healthy()).toBe(true);
    expect((await store.signUp("still@example.com", withoutMail())).outcome).toBe("subscribed");
  });
});

describe("a backup disk that fills up (a tmpfs, root only)", () => {
  const root = process.getuid?.() === 0;
  let mountPoint: string | undefined;

  afterEach(() => {
    if (mountPoint) execFileSync("umount", [mountPoint]);
    mountPoint = undefined;
  });

  it.skipIf(!root)(
    "leaves no partial file when the disk fills in the middle of a copy, and sign-ups go on",
    async () => {
      mountPoint = path.join(dir, "small-disk");
      mkdirSync(mountPoint);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", mountPoint]);
      const store = openStore();
      // A list of a few MiB: far more than the disk holds, so the copy runs out of room part way.
      store.owner.addBack(
        Array.from({ length: 20_000 }, (_, i) => ({
          email: `reader-${i}@example.com`,
          createdAt: "2026-11-01T00:00:00.000Z",
          unsubscribeToken: null,
        })),
      );
      // As if the room had gone between the check and the copy (another writer on that disk).
      const plenty = () => Number.MAX_SAFE_INTEGER;
      await expect(writeBackup(store, settings({ dir: mountPoint }), new Date(), plenty)).rejects.toThrow(/full/i);
      expect(readdirSync(mountPoint)).toEqual([]);
      expect(store.healthy()).toBe(true);
      expect((await store.signUp("after-the-full-disk@example.com", withoutMail())).outcome).toBe("subscribed");
    },
  );
});
