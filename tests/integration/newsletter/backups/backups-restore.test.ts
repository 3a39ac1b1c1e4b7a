// Restoring the embedded store from its backups on real files, in the two cases the owner meets (the automatic
// schedule: backups.test.ts).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type BackupSettings,
  listBackups,
  restoreBackup,
  writeBackup,
} from "~/newsletter/backups/automatic-backups.server";
import { openSqliteList, SQLITE_FILE_NAME, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { emailsInFile } from "../../../support/newsletter/http";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
let dataDir: string;
let backupDir: string;
const open: SqliteList[] = [];

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

const files = (folder = backupDir) => (existsSync(folder) ? readdirSync(folder).sort() : []);

const emailsIn = emailsInFile;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "newsletter-backups-"));
  dataDir = path.join(dir, "data");
  backupDir = path.join(dataDir, "backups");
  vi.spyOn(console, "info").mockImplementation(() => {});
});

afterEach(() => {
  for (const store of open.splice(0)) store.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("restore", () => {
  async function listWithBackup(emails: string[]) {
    const store = openStore();
    for (const email of emails) await store.signUp(email, withoutMail());
    const backup = (await writeBackup(store, settings())).file;
    return { store, backup };
  }

  it("brings back every subscriber when the database file was deleted (the server stopped)", async () => {
    const emails = Array.from({ length: 25 }, (_, i) => `reader-${i}@example.com`);
    const { store, backup } = await listWithBackup(emails);
    const tokens = store.owner.rows().map((row) => row.unsubscribeToken);
    store.close();
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(path.join(dataDir, `${SQLITE_FILE_NAME}${suffix}`), { force: true });
    const report = await restoreBackup(backup, dataDir, backupDir);
    expect(report).toMatchObject({ kind: "replaced", reason: "it was missing", keptAs: null, subscribers: 25 });
    const reopened = openStore();
    expect(reopened.owner.rows().map((row) => row.email)).toEqual(emails);
    // Their links keep working.
    expect(reopened.owner.rows().map((row) => row.unsubscribeToken)).toEqual(tokens);
  });

  it("keeps a log left without its database before it puts the backup in place", async () => {
    const { store, backup } = await listWithBackup(["a@example.com"]);
    store.close();
    const live = path.join(dataDir, SQLITE_FILE_NAME);
    rmSync(live);
    // What a deleted database can leave behind: its log, which may hold the last commits, and the log's index.
    writeFileSync(`${live}-wal`, "the last commits");
    writeFileSync(`${live}-shm`, "the log's index");
    const report = await restoreBackup(backup, dataDir, backupDir);
    expect(report).toMatchObject({ kind: "replaced", reason: "it was missing", keptAs: null, subscribers: 1 });
    const keptLog = report.kind === "replaced" ? report.keptLog : [];
    expect(keptLog.map((file) => path.basename(file))).toEqual([
      expect.stringMatching(/^replaced-.*\.sqlite-wal$/),
      expect.stringMatching(/^replaced-.*\.sqlite-shm$/),
    ]);
    expect(keptLog.map((file) => readFileSync(file, "utf8"))).toEqual(["the last commits", "the log's index"]);
    expect(emailsIn(live)).toEqual(["a@example.com"]);
  });

  it("replaces a damaged file, keeping it beside the backups", async () => {
    const { store, backup } = await listWithBackup(["a@example.com", "b@example.com"]);
    store.close();
    const live = path.join(dataDir, SQLITE_FILE_NAME);
    writeFileSync(live, "scrambled ".repeat(1_000));
    const report = await restoreBackup(backup, dataDir, backupDir);
    expect(report).toMatchObject({ kind: "replaced", reason: "file is not a database", subscribers: 2 });
    expect(report.keptAs && existsSync(report.keptAs)).toBe(true);
    expect(emailsIn(live)).toEqual(["a@example.com", "b@example.com"]);
  });

  it("puts back an address removed by mistake while the store is in use; a reader who left by link stays gone", async () => {
    const { store, backup } = await listWithBackup(["keep@example.com", "removed@example.com", "left@example.com"]);
    const left = store.owner.rows().find((row) => row.email === "left@example.com")!;
    await store.unsubscribe(left.unsubscribeToken);
    expect(store.owner.remove("removed@example.com")).toBe(true);
    await store.signUp("new@example.com", withoutMail());
    const report = await restoreBackup(backup, dataDir, backupDir);
    expect(report).toMatchObject({
      kind: "added back",
      added: ["removed@example.com"],
      alreadyThere: 1,
      unsubscribedSince: 1,
      before: 2,
      after: 3,
    });
    // The store that stayed open sees it (the server does not restart).
    expect(
      store.owner
        .rows()
        .map((row) => row.email)
        .sort(),
    ).toEqual(["keep@example.com", "new@example.com", "removed@example.com"]);
    expect((await store.signUp("Removed@example.com", withoutMail())).outcome).toBe("duplicate");
    // What it replaced is kept.
    expect(report.kind === "added back" && emailsIn(report.keptAs).sort()).toEqual([
      "keep@example.com",
      "new@example.com",
    ]);
  });

  it.each([
    ["a text file", (file: string) => writeFileSync(file, "email\nsomeone@example.com\n"), /file is not a database/],
    [
      "another SQLite database",
      (file: string) => {
        const db = new DatabaseSync(file);
        db.exec("create table notes (body text); insert into notes values ('hello');");
        db.close();
      },
      /no newsletter_subscribers table/,
    ],
    ["a missing file", () => {}, /does not exist/],
  ])("refuses %s and changes nothing", async (_label, make, reason) => {
    const store = openStore();
    await store.signUp("stays@example.com", withoutMail());
    const file = path.join(dir, "not-a-backup.sqlite");
    make(file);
    await expect(restoreBackup(file, dataDir, backupDir)).rejects.toThrow(reason);
    await expect(restoreBackup(file, dataDir, backupDir)).rejects.toThrow(/not-a-backup\.sqlite/);
    expect(store.owner.rows().map((row) => row.email)).toEqual(["stays@example.com"]);
    expect(files()).toEqual([]);
  });

  it("lists the backups newest first, each with what it holds, and says which file is no backup", async () => {
    const { store } = await listWithBackup(["one@example.com"]);
    vi.setSystemTime(new Date(Date.now() + 2_000));
    await store.signUp("two@example.com", withoutMail());
    await writeBackup(store, settings());
    writeFileSync(path.join(backupDir, "junk.sqlite"), "junk");
    // Older than both: a file without a time in its name is placed by its own.
    utimesSync(path.join(backupDir, "junk.sqlite"), new Date("2026-01-01"), new Date("2026-01-01"));
    vi.useRealTimers();
    const listing = listBackups(backupDir);
    expect(listing.map((entry) => entry.subscribers)).toEqual([
      2,
      1,
      { problem: expect.stringMatching(/^not a backup/) },
    ]);
  });

  it("lists the list a restore set aside between the backups taken before and after it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-23T08:00:00Z"));
    const { store, backup } = await listWithBackup(["one@example.com"]);
    vi.setSystemTime(new Date("2026-11-23T12:00:00Z"));
    store.owner.remove("one@example.com");
    await restoreBackup(backup, dataDir, backupDir);
    vi.setSystemTime(new Date("2026-11-24T08:00:00Z"));
    await writeBackup(store, settings());
    vi.useRealTimers();
    expect(listBackups(backupDir).map((entry) => [path.basename(entry.file), entry.subscribers])).toEqual([
      ["newsletter-2026-11-24T080000Z.sqlite", 1],
      ["replaced-2026-11-23T120000Z.sqlite", 0],
      ["newsletter-2026-11-23T080000Z.sqlite", 1],
    ]);
  });
});
