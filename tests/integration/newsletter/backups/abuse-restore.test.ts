// Crafted backups against restore: a file the store could not use is refused, with a message, before
// anything is replaced or added; the restored list is rebuilt from the rows, never the foreign file; and the owner
// can always restore a good backup afterwards.
import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { restoreBackup } from "~/newsletter/backups/automatic-backups.server";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { serverHarness } from "../../../support/production-server";
import { storeScratch } from "../../../support/store-scratch";
import { subscribers } from "../../../support/subscribers-cli";
import { withoutMail } from "../../../support/newsletter/without-mail";

const { scratch, openStore } = storeScratch("portfolio-abuse-restore-");
const live = () => path.join(scratch.dataDir, SQLITE_FILE_NAME);

/** A backup as the store writes one, holding `emails`, then changed by `craft` (the hostile part). */
async function craftedBackup(name: string, emails: string[], craft: (db: DatabaseSync) => void = () => {}) {
  const source = openSqliteList(path.join(scratch.dir, `source-${name}`));
  try {
    for (const email of emails) expect((await source.signUp(email, withoutMail())).outcome).toBe("subscribed");
    const file = path.join(scratch.dir, `${name}.sqlite`);
    await source.owner.backup(file);
    const db = new DatabaseSync(file);
    try {
      craft(db);
    } finally {
      db.close();
    }
    return file;
  } finally {
    source.close();
  }
}

/** The rows of a file, read as they are stored (no checks). */
function rowsIn(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare("select email, unsubscribe_token as token from newsletter_subscribers order by id").all();
  } finally {
    db.close();
  }
}

/** A fresh row written past the store's own checks (the index on lower(email) is dropped first where needed). */
const insertRaw = (db: DatabaseSync, email: unknown, token: unknown = randomUUID()) =>
  db
    .prepare("insert into newsletter_subscribers (email, created_at, unsubscribe_token) values (?, ?, ?)")
    .run(email as string, "2026-11-01T00:00:00.000Z", token as string);

describe("restore over a missing live file refuses a backup the store could not use", () => {
  const cases: [string, (db: DatabaseSync) => void, RegExp][] = [
    [
      "a trigger that deletes every sign-up",
      (db) =>
        db.exec(
          "create trigger swallow after insert on newsletter_subscribers begin " +
            "delete from newsletter_subscribers where id = new.id; end",
        ),
      /trigger/,
    ],
    [
      "a trigger that ignores every sign-up",
      (db) => db.exec("create trigger refuse before insert on newsletter_subscribers begin select raise(ignore); end"),
      /trigger/,
    ],
    [
      "a view named newsletter_subscribers",
      (db) => {
        db.exec("alter table newsletter_subscribers rename to kept");
        db.exec("create view newsletter_subscribers as select * from kept");
      },
      /view/,
    ],
    [
      "one address twice, in two letter cases",
      (db) => {
        db.exec("drop index newsletter_subscribers_email_lower_key");
        insertRaw(db, "Reader@Example.com");
      },
      /the address of row 1 again/,
    ],
    [
      "one token twice",
      (db) => {
        db.exec("drop index newsletter_subscribers_unsubscribe_token_key");
        const { token } = db.prepare("select unsubscribe_token as token from newsletter_subscribers").get() as {
          token: string;
        };
        insertRaw(db, "other@example.com", token);
      },
      /unsubscribe token of row 1 again/,
    ],
  ];

  for (const [what, craft, message] of cases) {
    it(`${what}: nothing is replaced, and a good backup restores afterwards`, async () => {
      const bad = await craftedBackup("bad", ["reader@example.com"], craft);
      const good = await craftedBackup("good", ["good@example.com"]);
      await expect(restoreBackup(bad, scratch.dataDir, scratch.backupDir)).rejects.toThrow(message);
      expect(existsSync(live())).toBe(false);

      const report = await restoreBackup(good, scratch.dataDir, scratch.backupDir);
      expect(report).toMatchObject({ kind: "replaced", subscribers: 1 });
      const store = openStore();
      expect((await store.signUp("after@example.com", withoutMail())).outcome).toBe("subscribed");
      expect(store.owner.rows().map((row) => row.email)).toEqual(["good@example.com", "after@example.com"]);
    });
  }

  it("rebuilds the live file from the rows: nothing else of the foreign file comes along", async () => {
    const backup = await craftedBackup("extra", ["reader@example.com"], (db) => {
      db.exec("create table notes (text text); insert into notes values ('not the store''s')");
      db.exec("create index extra_index on newsletter_subscribers (created_at)");
    });
    const report = await restoreBackup(backup, scratch.dataDir, scratch.backupDir);
    expect(report).toMatchObject({ kind: "replaced", subscribers: 1 });
    const db = new DatabaseSync(live(), { readOnly: true });
    try {
      const names = (db.prepare("select name from sqlite_schema order by name").all() as { name: string }[]).map(
        (row) => row.name,
      );
      expect(names).not.toContain("notes");
      expect(names).not.toContain("extra_index");
    } finally {
      db.close();
    }
    expect(rowsIn(live())).toEqual(rowsIn(backup));
  });

  it("replaces a live file an earlier restore left unusable (a view, no indexes) with a good backup", async () => {
    // What a restore that copied the foreign file would have left: the server cannot open it.
    const broken = await craftedBackup("broken", ["a@example.com"], (db) => {
      db.exec("drop index newsletter_subscribers_email_lower_key");
      insertRaw(db, "A@example.com");
      db.exec("create view everyone as select email from newsletter_subscribers");
    });
    mkdirSync(scratch.dataDir, { recursive: true });
    copyFileSync(broken, live());
    const good = await craftedBackup("good", ["good@example.com"]);
    const report = await restoreBackup(good, scratch.dataDir, scratch.backupDir);
    expect(report).toMatchObject({ kind: "replaced", subscribers: 1 });
    expect(report.kind === "replaced" && report.reason).toMatch(/view/);
    expect(
      openStore()
        .owner.rows()
        .map((row) => row.email),
    ).toEqual(["good@example.com"]);
  });
});

describe("restore into a live list (merge) checks every row the same way", () => {
  const LONG = `${"a".repeat(250)}@example.com`;
  const cases: [string, (db: DatabaseSync) => void, RegExp][] = [
    ["a non-address", (db) => insertRaw(db, "not an address"), /not an address the sign-up form takes/],
    ["an address over 255 characters", (db) => insertRaw(db, LONG), /longer than 255 characters/],
    ["a 5 MB address", (db) => insertRaw(db, `${"x".repeat(5_000_000)}@example.com`), /longer than 255/],
    ["an upper-case token", (db) => insertRaw(db, "upper@example.com", randomUUID().toUpperCase()), /token/],
    [
      "a BLOB address",
      (db) =>
        db
          .prepare("insert into newsletter_subscribers (email, created_at, unsubscribe_token) values (?, ?, ?)")
          .run(new Uint8Array([97, 64, 98, 46, 99]), "2026-11-01T00:00:00.000Z", randomUUID()),
      /BLOB/,
    ],
    ["an address with spaces around it", (db) => insertRaw(db, " padded@example.com"), /sign-up form/],
  ];

  for (const [what, craft, message] of cases) {
    it(`${what}: refused with a message, the live list untouched`, async () => {
      const store = openStore();
      expect((await store.signUp("live@example.com", withoutMail())).outcome).toBe("subscribed");
      const before = readFileSync(live()).length;
      const backup = await craftedBackup("merge", ["fine@example.com"], craft);
      await expect(restoreBackup(backup, scratch.dataDir, scratch.backupDir)).rejects.toThrow(message);
      expect(store.owner.rows().map((row) => row.email)).toEqual(["live@example.com"]);
      expect(readFileSync(live()).length).toBe(before);
      // A message of one bounded line, whatever the file held.
      const error = await restoreBackup(backup, scratch.dataDir, scratch.backupDir).catch((caught: Error) => caught);
      expect((error as Error).message.length).toBeLessThan(1_000);
    });
  }
});

describe("npm run subscribers -- restore, with a crafted backup", () => {
  const harness = serverHarness("portfolio-abuse-restore-cli-");
  afterEach(() => harness.cleanup());

  it("exits 1 with a message naming the trouble, and the owner's next restore of a good backup works", async () => {
    const cliData = harness.scratchDir();
    const bad = await craftedBackup("cli-bad", ["reader@example.com"], (db) =>
      db.exec(
        "create trigger swallow after insert on newsletter_subscribers begin delete from newsletter_subscribers; end",
      ),
    );
    const good = await craftedBackup("cli-good", ["good@example.com"]);
    const refused = await subscribers(cliData, ["restore", bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("trigger");
    expect(refused.stderr).not.toContain("Restored");
    expect(existsSync(path.join(cliData, SQLITE_FILE_NAME))).toBe(false);
    const restored = await subscribers(cliData, ["restore", good]);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain("Restored 1 subscriber");
    expect(await subscribers(cliData, ["list"])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^good@example\.com\t/),
    });
  }, 90_000);
});
