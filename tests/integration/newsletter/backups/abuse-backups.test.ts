// The automatic backups against a hostile backup folder: backups named in the future, other programs'
// partial files, and a file whose reading never ends.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type BackupSettings,
  listBackups,
  startAutomaticBackups,
  writeBackup,
} from "~/newsletter/backups/automatic-backups.server";
import type { SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { serverHarness } from "../../../support/production-server";
import { storeScratch } from "../../../support/store-scratch";
import { subscribers } from "../../../support/subscribers-cli";

const { scratch, openStore } = storeScratch("portfolio-abuse-backups-");
beforeEach(() => mkdirSync(scratch.backupDir, { recursive: true }));

const settings = (keep: number): BackupSettings => ({ dir: scratch.backupDir, keep, timeZone: "Europe/Brussels" });
const files = () => readdirSync(scratch.backupDir).sort();
/** A valid backup file under an automatic backup's name. */
async function backupNamed(store: SqliteList, name: string) {
  await store.owner.backup(path.join(scratch.backupDir, name));
}

describe("retention against backups dated in the future", () => {
  it("with BACKUP_KEEP=1 and one backup named in 2031, keeps the backup just made", async () => {
    const store = openStore();
    await backupNamed(store, "newsletter-2031-01-01T000000Z.sqlite");
    const now = new Date("2026-11-24T08:00:00Z");
    const written = await writeBackup(store, settings(1), now);
    expect(files()).toContain("newsletter-2026-11-24T080000Z.sqlite");
    expect(written.removed).toEqual([]);
    // The future one is neither counted nor deleted: the owner is told instead.
    expect(files()).toContain("newsletter-2031-01-01T000000Z.sqlite");
  });

  it("with the default of 7 and seven future names, every new backup stays, and older ones still go", async () => {
    const store = openStore();
    for (let year = 2031; year < 2038; year += 1) await backupNamed(store, `newsletter-${year}-01-01T000000Z.sqlite`);
    for (let day = 10; day < 20; day += 1) {
      await writeBackup(store, settings(7), new Date(`2026-11-${day}T08:00:00Z`));
    }
    const present = files().filter((name) => name.startsWith("newsletter-2026"));
    expect(present).toEqual(Array.from({ length: 7 }, (_, i) => `newsletter-2026-11-${13 + i}T080000Z.sqlite`));
    expect(files().filter((name) => name.startsWith("newsletter-203"))).toHaveLength(7);
  });

  it("names the future-dated files in the automatic backup's log line", async () => {
    let backupLogged!: () => void;
    const logged = new Promise<void>((resolve) => (backupLogged = resolve));
    const info = vi.spyOn(console, "info").mockImplementation((line: unknown) => {
      if (String(line).startsWith("Newsletter backup:")) backupLogged();
    });
    const store = openStore();
    await backupNamed(store, "newsletter-2031-01-01T000000Z.sqlite");
    const stop = startAutomaticBackups(store, settings(1));
    await logged;
    await stop();
    const line = String(info.mock.calls.find(([text]) => String(text).startsWith("Newsletter backup:"))?.[0]);
    expect(line).toContain("newsletter-2031-01-01T000000Z.sqlite");
    expect(line).not.toContain("removed");
    expect(
      files().filter((name) => name.startsWith("newsletter-2026") || name.startsWith("newsletter-2027")),
    ).toHaveLength(1);
  });
});

describe("the automatic backup touches only its own files", () => {
  it("leaves other programs' .partial files, however old", async () => {
    const store = openStore();
    const others = [".my-copy.sqlite.partial", ".export.csv.partial", ".replaced-2026-11-01T080000Z.sqlite.partial"];
    const longAgo = new Date("2026-01-01T00:00:00Z");
    for (const name of others) {
      writeFileSync(path.join(scratch.backupDir, name), "someone else's");
      utimesSync(path.join(scratch.backupDir, name), longAgo, longAgo);
    }
    await writeBackup(store, settings(7), new Date("2026-11-24T08:00:00Z"));
    expect(files()).toEqual([...others.sort(), "newsletter-2026-11-24T080000Z.sqlite"].sort());
  });
});

describe("npm run subscribers -- backups, with a file that never finishes reading", () => {
  const harness = serverHarness("portfolio-abuse-backups-cli-");
  afterEach(() => harness.cleanup());

  it("lists the folder within seconds and names a recursive view as not a backup", async () => {
    const cliData = harness.scratchDir();
    const folder = path.join(cliData, "backups");
    mkdirSync(folder, { recursive: true });
    const trap = new DatabaseSync(path.join(folder, "trap.sqlite"));
    try {
      trap.exec(
        "create view newsletter_subscribers as with recursive n(id, email, created_at, unsubscribe_token) as " +
          "(select 1, 'a@example.com', '2026-11-01T00:00:00.000Z', null union all " +
          "select id + 1, email, created_at, unsubscribe_token from n) select * from n where id < 0",
      );
    } finally {
      trap.close();
    }
    const started = Date.now();
    const run = await subscribers(cliData, ["backups"]);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("trap.sqlite");
    expect(run.stdout).toMatch(/trap\.sqlite\t.*not a backup.*view/);
  }, 90_000);
});

describe("a backup whose integrity check would take minutes", () => {
  it("is given up on after the time limit, named in the listing, and the listing goes on", async () => {
    const store = openStore();
    await backupNamed(store, "newsletter-2026-11-23T080000Z.sqlite");
    // An index on a costly expression: the integrity check recomputes it for every row, about 0.25 s a row, so two
    // thousand rows hold a read for minutes on any machine. The index is made on a cheap expression and its schema
    // rewritten after, so that making the file costs nothing.
    const slow = new DatabaseSync(path.join(scratch.backupDir, "slow.sqlite"), { defensive: false });
    try {
      slow.exec(
        "create table newsletter_subscribers (id integer primary key, email text not null, created_at text not null)",
      );
      slow.exec(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) " +
          "insert into newsletter_subscribers (email, created_at) " +
          "select 'r' || i || '@example.com', '2026-11-01T00:00:00.000Z' from n",
      );
      slow.exec("create index costly on newsletter_subscribers (length(hex(zeroblob(1 + id))))");
      slow.exec("pragma writable_schema = on");
      slow.exec("update sqlite_schema set sql = replace(sql, '(1 + id)', '(20000000 + id)') where name = 'costly'");
    } finally {
      slow.close();
    }
    // A limit far above what reading the good backup takes, even on a busy machine, and far below the trap's minutes.
    const listing = listBackups(scratch.backupDir, 5_000);
    const byName = Object.fromEntries(listing.map((entry) => [path.basename(entry.file), entry.subscribers]));
    expect(byName["slow.sqlite"]).toEqual({ problem: expect.stringMatching(/reading it took longer than 5 s/) });
    expect(byName["newsletter-2026-11-23T080000Z.sqlite"]).toBe(0);
  }, 60_000);
});
