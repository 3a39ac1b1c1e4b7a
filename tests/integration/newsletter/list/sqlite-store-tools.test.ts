// The embedded SQLite store as the reader who leaves and the owner use it: unsubscribing, the owner's tools, and a
// backup taken while the store is in use (the store itself: sqlite-store.test.ts).
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it, vi } from "vitest";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { sqliteStoresPerTest, subscriberRows } from "../../../support/newsletter/sqlite-stores";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
const openStore = sqliteStoresPerTest((made) => (dir = made));
const rows = subscriberRows;

function journalMode(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("pragma journal_mode").get() as { journal_mode: string }).journal_mode;
  } finally {
    db.close();
  }
}

describe("unsubscribing and the owner's tools (embedded store)", () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("gives every subscriber its own unguessable token", async () => {
    const store = openStore();
    await store.signUp("a@example.com", withoutMail());
    await store.signUp("b@example.com", withoutMail());
    const [a, b] = store.owner.rows();
    expect(a!.unsubscribeToken).toMatch(UUID);
    expect(b!.unsubscribeToken).toMatch(UUID);
    expect(a!.unsubscribeToken).not.toBe(b!.unsubscribeToken);
  });

  it("removes exactly the subscriber holding the token; an unknown or used token changes nothing and says so", async () => {
    const store = openStore();
    const log = vi.spyOn(console, "info").mockImplementation(() => {});
    await store.signUp("stay@example.com", withoutMail());
    await store.signUp("leave@example.com", withoutMail());
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
    await store.signUp("back@example.com", withoutMail());
    const first = store.owner.rows()[0]!.unsubscribeToken;
    await store.unsubscribe(first);
    await expect(store.signUp("Back@Example.com", withoutMail()).then((r) => r.outcome)).resolves.toBe("subscribed");
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
    await store.signUp("Someone@Example.com", withoutMail());
    expect(store.owner.remove("someone@example.COM")).toBe(true);
    expect(store.owner.remove("someone@example.com")).toBe(false);
    expect(store.owner.count()).toBe(0);
  });

  it("backs up to a new file that opens on its own, while the store stays in use; never over an existing file", async () => {
    const store = openStore();
    await store.signUp("kept@example.com", withoutMail());
    const folder = path.join(dir, "copies");
    mkdirSync(folder);
    const target = path.join(folder, "backup.sqlite");
    expect(await store.owner.backup(target)).toBe(1);
    await store.signUp("after@example.com", withoutMail());
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
      if (turn === 1) events.push(`sign-up ${(await store.signUp("during@example.com", withoutMail())).outcome}`);
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
        expect((await writer.signUp(`during-${written}@example.com`, withoutMail())).outcome).toBe("subscribed");
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
