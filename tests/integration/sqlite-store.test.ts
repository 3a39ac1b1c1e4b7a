import { randomUUID } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  openSqliteList,
  SQLITE_FILE_NAME,
  type SqliteList,
  StoreFileError,
  WRITE_CHECK_INTERVAL_MS,
} from "~/newsletter/list/sqlite/sqlite-list.server";
import { until } from "../support/until";

let dir: string;
const open: SqliteList[] = [];

function openStore(dataDir = dir) {
  const store = openSqliteList(dataDir);
  open.push(store);
  return store;
}

function rows(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare("select id, email, created_at from newsletter_subscribers order by id").all() as {
      id: number;
      email: string;
      created_at: string;
    }[];
  } finally {
    db.close();
  }
}

function journalMode(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("pragma journal_mode").get() as { journal_mode: string }).journal_mode;
  } finally {
    db.close();
  }
}

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

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "newsletter-sqlite-"));
});

afterEach(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

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
    expect((await store.signUp("ada@example.com")).outcome).toBe("subscribed");
    const [row] = rows(store.file);
    expect(row).toMatchObject({ id: 1, email: "ada@example.com" });
    expect(row!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("answers 'duplicate' for the same address in any letter case, and keeps the first", async () => {
    const store = openStore();
    expect((await store.signUp("Ada@Example.com")).outcome).toBe("subscribed");
    expect((await store.signUp("Ada@Example.com")).outcome).toBe("duplicate");
    expect((await store.signUp("ada@example.com")).outcome).toBe("duplicate");
    expect((await store.signUp("ADA@EXAMPLE.COM")).outcome).toBe("duplicate");
    expect((await store.signUp("ada2@example.com")).outcome).toBe("subscribed");
    expect(rows(store.file).map((row) => row.email)).toEqual(["Ada@Example.com", "ada2@example.com"]);
  });

  it("still knows the address after the file is closed and opened again", async () => {
    const first = openStore();
    expect((await first.signUp("ada@example.com")).outcome).toBe("subscribed");
    first.close();
    const second = openStore();
    expect((await second.signUp("ADA@example.com")).outcome).toBe("duplicate");
    expect((await second.signUp("grace@example.com")).outcome).toBe("subscribed");
    expect(rows(second.file)).toHaveLength(2);
  });

  it("is healthy while open and not after closing; a sign-up on a closed store fails and is logged masked", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    expect(store.healthy()).toBe(true);
    store.close();
    expect(store.healthy()).toBe(false);
    expect((await store.signUp("ada.lovelace@example.com")).outcome).toBe("failed");
    const logged = errors.mock.calls.flat().join(" ");
    expect(logged).toContain("a***@example.com");
    expect(logged).not.toContain("ada.lovelace");
  });

  it("keeps every acknowledged row when its -wal file is deleted: before the deletion and after", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    const before = Array.from({ length: 5 }, (_, i) => `before-${i}@example.com`);
    const after = Array.from({ length: 10 }, (_, i) => `after-${i}@example.com`);
    for (const email of before) expect((await store.signUp(email)).outcome).toBe("subscribed");
    rmSync(`${store.file}-wal`);
    for (const email of after) expect((await store.signUp(email)).outcome).toBe("subscribed");
    expect(store.healthy()).toBe(true);
    expect(afterCrash(store)).toEqual([...before, ...after]);
  });

  it("saves what a deleted -wal held at once, without waiting for the next sign-up", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    for (const email of ["one@example.com", "two@example.com"]) await store.signUp(email);
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

describe("unsubscribing and the owner's tools (embedded store)", () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("gives every subscriber its own unguessable token", async () => {
    const store = openStore();
    await store.signUp("a@example.com");
    await store.signUp("b@example.com");
    const [a, b] = store.owner.rows();
    expect(a!.unsubscribeToken).toMatch(UUID);
    expect(b!.unsubscribeToken).toMatch(UUID);
    expect(a!.unsubscribeToken).not.toBe(b!.unsubscribeToken);
  });

  it("removes exactly the subscriber holding the token; an unknown or used token changes nothing and says so", async () => {
    const store = openStore();
    const log = vi.spyOn(console, "info").mockImplementation(() => {});
    await store.signUp("stay@example.com");
    await store.signUp("leave@example.com");
    const leave = store.owner.rows().find((row) => row.email === "leave@example.com")!;
    await expect(store.unsubscribe("3f1e2d4c-5b6a-4789-8abc-def012345678")).resolves.toBe("unknown");
    await expect(store.unsubscribe("not-a-token")).resolves.toBe("unknown");
    expect(store.owner.count()).toBe(2);
    await expect(store.unsubscribe(leave.unsubscribeToken)).resolves.toBe("removed");
    expect(store.owner.rows().map((row) => row.email)).toEqual(["stay@example.com"]);
    await expect(store.unsubscribe(leave.unsubscribeToken)).resolves.toBe("unknown");
    expect(store.owner.count()).toBe(1);
    // The log names the address masked, never in full.
    expect(log.mock.calls.flat().join(" ")).toContain("l***@example.com");
    expect(log.mock.calls.flat().join(" ")).not.toContain("leave@example.com");
  });

  it("lets someone who left subscribe again, with a new token", async () => {
    const store = openStore();
    vi.spyOn(console, "info").mockImplementation(() => {});
    await store.signUp("back@example.com");
    const first = store.owner.rows()[0]!.unsubscribeToken;
    await store.unsubscribe(first);
    await expect(store.signUp("Back@Example.com").then((r) => r.outcome)).resolves.toBe("subscribed");
    expect(store.owner.rows()[0]!.unsubscribeToken).not.toBe(first);
  });

  it("gives the rows of a file from before tokens existed a token each when it opens", () => {
    const file = path.join(dir, SQLITE_FILE_NAME);
    const old = new DatabaseSync(file);
    old.exec(`
      create table newsletter_subscribers (
        id integer primary key, email text not null,
        created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
      create unique index newsletter_subscribers_email_lower_key on newsletter_subscribers (lower(email));
      insert into newsletter_subscribers (email) values ('first@example.com'), ('second@example.com');
      pragma user_version = 1;`);
    old.close();
    const store = openStore();
    const rowsNow = store.owner.rows();
    expect(rowsNow.map((row) => row.email)).toEqual(["first@example.com", "second@example.com"]);
    for (const row of rowsNow) expect(row.unsubscribeToken).toMatch(UUID);
    expect(new Set(rowsNow.map((row) => row.unsubscribeToken)).size).toBe(2);
  });

  it("removes an address in any letter case, and says when it was not there", async () => {
    const store = openStore();
    await store.signUp("Someone@Example.com");
    expect(store.owner.remove("someone@example.COM")).toBe(true);
    expect(store.owner.remove("someone@example.com")).toBe(false);
    expect(store.owner.count()).toBe(0);
  });

  it("backs up to a new file that opens on its own, while the store stays in use; never over an existing file", async () => {
    const store = openStore();
    await store.signUp("kept@example.com");
    const folder = path.join(dir, "copies");
    mkdirSync(folder);
    const target = path.join(folder, "backup.sqlite");
    expect(await store.owner.backup(target)).toBe(1);
    await store.signUp("after@example.com");
    expect(rows(target).map((row) => row.email)).toEqual(["kept@example.com"]);
    await expect(store.owner.backup(target)).rejects.toThrow(/already exists/);
    // A file of its own: read, it grows no -wal or -shm beside it, and no temporary file is left.
    expect(journalMode(target)).toBe("delete");
    expect(readdirSync(folder)).toEqual(["backup.sqlite"]);
  });
});

describe("backing up while the store is in use", () => {
  /** A store holding `count` subscribers, written in one transaction before it opens (fast, and not its writes). */
  function storeWith(count: number) {
    openSqliteList(dir).close();
    const db = new DatabaseSync(path.join(dir, SQLITE_FILE_NAME));
    const insert = db.prepare("insert into newsletter_subscribers (email, unsubscribe_token) values (?, ?)");
    db.exec("begin");
    for (let i = 0; i < count; i += 1) insert.run(`reader-${i}@example.com`, randomUUID());
    db.exec("commit");
    db.close();
    return openStore();
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("does not hold up the event loop: with 50,000 subscribers, callbacks and a sign-up are served during the copy", async () => {
    const store = storeWith(50_000);
    const target = path.join(dir, "backup.sqlite");
    const partial = path.join(dir, ".backup.sqlite.partial");
    const events: string[] = [];
    let copying = true;
    const copy = Promise.resolve(store.owner.backup(target)).then((count) => {
      copying = false;
      events.push("copied");
      return count;
    });
    // Turns of the loop while the copy is under way: its temporary file is there and the backup's name is not yet.
    let turnsMidCopy = 0;
    for (let turn = 0; copying && turn < 1_000_000; turn += 1) {
      if (existsSync(partial) && !existsSync(target)) turnsMidCopy += 1;
      if (turn === 1) events.push(`sign-up ${(await store.signUp("during@example.com")).outcome}`);
      await nextTurn();
    }
    const copied = await copy;
    expect(events).toEqual(["sign-up subscribed", "copied"]);
    expect(turnsMidCopy).toBeGreaterThan(1);
    expect(copied).toBe(rows(target).length);
    // The sign-up came through this store's connection between two steps: its page went into the copy too.
    expect(copied).toBe(50_001);
  });

  it.each([
    ["this store's connection (the server's own)", false],
    ["another connection (the owner's tools)", true],
  ])(
    "sign-ups that commit through %s while the copy is under way leave a consistent copy that loses nothing",
    async (_label, elsewhere) => {
      const store = storeWith(5_000);
      const writer = elsewhere ? openStore() : store;
      const target = path.join(dir, "backup.sqlite");
      let copying = true;
      // One page per step: the copy has hundreds of steps, and sign-ups commit between them.
      const copy = store.owner.backup(target, { stepPages: 1 }).finally(() => (copying = false));
      let written = 0;
      let midCopy = 0;
      for (; copying && written < 300; written += 1) {
        expect((await writer.signUp(`during-${written}@example.com`)).outcome).toBe("subscribed");
        if (copying) midCopy += 1;
        await nextTurn();
      }
      const copied = await copy;
      expect(midCopy).toBeGreaterThan(0);
      const db = new DatabaseSync(target, { readOnly: true });
      try {
        expect(db.prepare("pragma integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      } finally {
        db.close();
      }
      const live = rows(store.file);
      const inCopy = rows(target);
      expect(inCopy).toHaveLength(copied);
      // The list as it stood at one moment: every row committed before it, in order, and none after.
      expect(inCopy).toEqual(live.slice(0, copied));
      // That moment is after the sign-ups that committed between steps: the copy restarts or takes them in as it goes.
      expect(copied).toBeGreaterThan(5_000);
      expect(live).toHaveLength(5_000 + written);
    },
  );
});
