import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it, vi } from "vitest";
import {
  SQLITE_FILE_NAME,
  type SqliteList,
  StoreFileError,
  WRITE_CHECK_INTERVAL_MS,
} from "~/newsletter/list/sqlite/sqlite-list.server";
import { until } from "../../../support/until";
import { sqliteStoresPerTest, subscriberRows } from "../../../support/newsletter/sqlite-stores";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
const openStore = sqliteStoresPerTest((made) => (dir = made));
const rows = subscriberRows;

/** What an unclean exit would leave: the database file and whatever log is at its name now, opened elsewhere. */
function afterCrash(store: SqliteList): string[] {
  const copy = path.join(dir, "crash");
  mkdirSync(copy);
  for (const suffix of ["", "-wal"]) {
    if (existsSync(`${store.file}${suffix}`))
      copyFileSync(`${store.file}${suffix}`, path.join(copy, `${SQLITE_FILE_NAME}${suffix}`));
  }
  return rows(path.join(copy, SQLITE_FILE_NAME)).map((row) => row.email);
}

describe("the embedded SQLite store", () => {
  it("creates DATA_DIR (and missing parents) and the database file at start-up", () => {
    const nested = path.join(dir, "a", "b");
    const store = openStore(nested);
    expect(store.file).toBe(path.join(nested, SQLITE_FILE_NAME));
    expect(existsSync(store.file)).toBe(true);
    expect(rows(store.file)).toEqual([]);
  });

  it("uses WAL and a unique index on lower(email)", () => {
    const store = openStore();
    const db = new DatabaseSync(store.file, { readOnly: true });
    try {
      expect(db.prepare("pragma journal_mode").get()).toEqual({ journal_mode: "wal" });
      const index = db
        .prepare("select sql from sqlite_master where type = 'index' and tbl_name = 'newsletter_subscribers'")
        .get() as { sql: string };
      expect(index.sql).toMatch(/create unique index \S+\s+on newsletter_subscribers \(lower\(email\)\)/i);
    } finally {
      db.close();
    }
  });

  it("stores an address once, with an id and a UTC timestamp", async () => {
    const store = openStore();
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("subscribed");
    const [row] = rows(store.file);
    expect(row).toMatchObject({ id: 1, email: "ada@example.com" });
    expect(row!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("answers 'duplicate' for the same address in any letter case, and keeps the first", async () => {
    const store = openStore();
    expect((await store.signUp("Ada@Example.com", withoutMail())).outcome).toBe("subscribed");
    expect((await store.signUp("Ada@Example.com", withoutMail())).outcome).toBe("duplicate");
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("duplicate");
    expect((await store.signUp("ADA@EXAMPLE.COM", withoutMail())).outcome).toBe("duplicate");
    expect((await store.signUp("ada2@example.com", withoutMail())).outcome).toBe("subscribed");
    expect(rows(store.file).map((row) => row.email)).toEqual(["Ada@Example.com", "ada2@example.com"]);
  });

  it("still knows the address after the file is closed and opened again", async () => {
    const first = openStore();
    expect((await first.signUp("ada@example.com", withoutMail())).outcome).toBe("subscribed");
    first.close();
    const second = openStore();
    expect((await second.signUp("ADA@example.com", withoutMail())).outcome).toBe("duplicate");
    expect((await second.signUp("grace@example.com", withoutMail())).outcome).toBe("subscribed");
    expect(rows(second.file)).toHaveLength(2);
  });

  it("is healthy while open and not after closing; a sign-up on a closed store fails and is logged masked", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    expect(store.healthy()).toBe(true);
    store.close();
    expect(store.healthy()).toBe(false);
    expect((await store.signUp("ada.lovelace@example.com", withoutMail())).outcome).toBe("failed");
    const logged = errors.mock.calls.flat().join(" ");
    expect(logged).toContain("a***@example.com");
    expect(logged).not.toContain("ada.lovelace");
  });

  it("keeps every acknowledged row when its -wal file is deleted: before the deletion and after", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    const before = Array.from({ length: 5 }, (_, i) => `before-${i}@example.com`);
    const after = Array.from({ length: 10 }, (_, i) => `after-${i}@example.com`);
    for (const email of before) expect((await store.signUp(email, withoutMail())).outcome).toBe("subscribed");
    rmSync(`${store.file}-wal`);
    for (const email of after) expect((await store.signUp(email, withoutMail())).outcome).toBe("subscribed");
    expect(store.healthy()).toBe(true);
    expect(afterCrash(store)).toEqual([...before, ...after]);
  });

  it("saves what a deleted -wal held at once, without waiting for the next sign-up", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    for (const email of ["one@example.com", "two@example.com"]) await store.signUp(email, withoutMail());
    rmSync(`${store.file}-wal`);
    rmSync(`${store.file}-shm`);
    await until(() => errors.mock.calls.flat().join(" ").includes("was deleted or replaced"), 10_000);
    expect(afterCrash(store)).toEqual(["one@example.com", "two@example.com"]);
  });

  it("proves it can write with a commit at most once per interval, however often it is asked", () => {
    const store = openStore();
    const wal = `${store.file}-wal`;
    let now = Date.now() + WRITE_CHECK_INTERVAL_MS;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    expect(store.healthy()).toBe(true);
    const size = statSync(wal).size;
    for (let i = 0; i < 200; i += 1) expect(store.healthy()).toBe(true);
    expect(statSync(wal).size).toBe(size);
    now += WRITE_CHECK_INTERVAL_MS;
    expect(store.healthy()).toBe(true);
    expect(statSync(wal).size).toBeGreaterThan(size);
  });

  it("names a damaged file as the problem, not the folder", () => {
    writeFileSync(path.join(dir, SQLITE_FILE_NAME), "this is not a database, it only has the name of one".repeat(100));
    expect(() => openStore()).toThrow(StoreFileError);
    expect(() => openStore()).toThrow(/newsletter\.sqlite \(Error: file is not a database\)/);
  });

  it("refuses to open when DATA_DIR cannot be created (a file is in the way)", () => {
    const blocker = path.join(dir, "not-a-folder");
    writeFileSync(blocker, "");
    expect(() => openStore(path.join(blocker, "data"))).toThrow(/ENOTDIR|EEXIST|not a directory/i);
  });

  it.skipIf(process.getuid?.() === 0)("refuses to open a read-only DATA_DIR (permissions do not bind root)", () => {
    const readOnly = path.join(dir, "read-only");
    openStore(readOnly).close();
    rmSync(path.join(readOnly, SQLITE_FILE_NAME));
    chmodSync(readOnly, 0o500);
    try {
      expect(() => openStore(readOnly)).toThrow();
    } finally {
      chmodSync(readOnly, 0o700);
    }
  });
});
