// The production server's own automatic backups, over HTTP: a backup taken while 200 sign-ups are in flight, a backup
// disk that is full or unusable, and none at all when Supabase holds the list. The schedule's rules and restore are
// tested on the module itself in backups.test.ts. Needs `npm run build` first (`npm test` does it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { freeBytesOn, readBackup } from "~/newsletter/backups/automatic-backups.server";
import { SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { postForm, storedEmails, subscribe } from "../../../support/newsletter/http";
import { serverHarness, type ServerProcess, tempDir } from "../../../support/production-server";
import { startStubSupabase, type StubSupabase } from "../../../support/stub-supabase/stub";

const harness = serverHarness("portfolio-backups-");
let stub: StubSupabase | undefined;
afterEach(async () => {
  await harness.cleanup();
  await stub?.close();
  stub = undefined;
});

const SLOW = 120_000;
const root = process.getuid?.() === 0;

/** A DATA_DIR whose list already holds `rows` subscribers, written in one statement (a sign-up each would take long). */
function dataDirWith(rows: number, dataDir = harness.scratchDir()) {
  openSqliteList(dataDir).close();
  const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME));
  try {
    db.exec(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
       insert into newsletter_subscribers (email, created_at, unsubscribe_token)
       select 'existing-' || i || '@example.com', '2026-11-01T00:00:00.000Z', lower(hex(randomblob(16))) from n`,
    );
  } finally {
    db.close();
  }
  // Opened once more as the server opens it, so the file is what this version writes (each row's mailbox stored), and
  // the server's own open writes nothing into the room the test measures.
  openSqliteList(dataDir).close();
  const checkpoint = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME));
  checkpoint.exec("pragma wal_checkpoint(truncate)");
  checkpoint.close();
  return dataDir;
}

/** The lines the server logged about its automatic backups. */
const backupLines = (server: ServerProcess) =>
  server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("Newsletter backup"));

const signUp = (url: string, email: string) => postForm(url, new URLSearchParams({ email, website: "" }));

/** Waits (10 s at most) until the server has logged `count` backup lines, made or failed. */
async function backupLinesAtLeast(server: ServerProcess, count: number) {
  const deadline = Date.now() + 10_000;
  while (backupLines(server).length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits for the server's first backup line, made or failed, and answers it. */
async function firstBackupLine(server: ServerProcess) {
  await server.waitForOutput("Newsletter backup");
  return backupLines(server)[0]!;
}

describe("the server's automatic backup", () => {
  it(
    "taken while 200 sign-ups are in flight holds part of them, passes its integrity check, and loses none",
    async () => {
      // The daily backup, made to fall due (tests/support/daily-tick-on-signal.mjs) as the first of 200 concurrent
      // sign-ups is answered: the copy then holds that one at least, and every row committed until it ends. It has
      // overlapped the sign-ups when it holds some of them but not all: strictly between the counts before and after.
      // That the copy (a few steps for this list) ends before the last of the other 199 is likely, not certain on a
      // busy machine: a few tries, and a failure if it never does.
      const BEFORE = 20_000;
      const attempts: string[] = [];
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const dataDir = dataDirWith(BEFORE);
        const server = await harness.start(
          { DATA_DIR: dataDir },
          { args: ["--import", "./tests/support/daily-tick-on-signal.mjs", "server/index.mjs"] },
        );
        // The start-up backup first; the daily one must not share its name (its time to the second).
        expect(await firstBackupLine(server)).toContain(`Newsletter backup: ${BEFORE} subscribers in`);
        await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));

        // A first burst of refused addresses (nothing stored) warms both processes up: cold, the runner reads its
        // first answer only after the server has answered them all.
        await Promise.all(Array.from({ length: 50 }, () => signUp(server.url, "not-an-address")));
        const emails = Array.from({ length: 200 }, (_, i) => `burst-${attempt}-${i}@example.com`);
        let answered = 0;
        const results = await Promise.all(
          emails.map((email) =>
            signUp(server.url, email).then((result) => {
              answered += 1;
              if (answered === 1) server.child.kill("SIGUSR2");
              return result;
            }),
          ),
        );
        await backupLinesAtLeast(server, 2);
        await server.stop();

        expect(results.map((result) => result.status)).toEqual(emails.map(() => 303));
        // Every sign-up is stored: none was lost to the copy.
        const stored = new Set(storedEmails(dataDir));
        expect(stored.size).toBe(BEFORE + 200);
        expect(emails.filter((email) => !stored.has(email))).toEqual([]);

        const line = backupLines(server)[1] ?? "no second backup line";
        const made = /^Newsletter backup: (\d+) subscribers in (.+?\.sqlite)\.$/.exec(line);
        expect(made, server.output()).not.toBeNull();
        const copied = Number(made![1]);
        // readBackup runs SQLite's integrity check and refuses the file unless it says ok.
        const backup = readBackup(made![2]!);
        expect(backup).toHaveLength(copied);
        const inCopy = backup.filter((row) => row.email.startsWith("burst-")).map((row) => row.email);
        expect(inCopy.length).toBe(copied - BEFORE);
        expect(inCopy.length).toBeGreaterThanOrEqual(1);
        expect(inCopy.every((email) => stored.has(email))).toBe(true);

        attempts.push(`${BEFORE} before, ${BEFORE + 200} after: the backup holds ${copied}`);
        if (copied < BEFORE + 200) return;
        rmSync(dataDir, { recursive: true, force: true });
      }
      expect.fail(`the backup never ended before the sign-ups did:\n${attempts.join("\n")}`);
    },
    SLOW,
  );

  it("is off with Supabase: no backup folder, no backup line", async () => {
    stub = await startStubSupabase();
    const dataDir = harness.scratchDir();
    const server = await harness.start({ SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey, DATA_DIR: dataDir });
    expect((await subscribe(server.url, "remote@example.com"))?.message).toBe(SUBSCRIBED_TOAST.message);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // The start-up backup is due at once (a timer of 0 ms, long past by now); a stop waits for one under way.
    await server.stop();
    expect(await stub.storedEmails()).toEqual(["remote@example.com"]);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(backupLines(server)).toEqual([]);
  }, 120_000); // the stand-in starts PGlite, whose first start compiles its WebAssembly

  it("fails in one line while BACKUP_DIR is unusable (a file), and /healthz and sign-ups are unaffected", async () => {
    const dataDir = harness.scratchDir();
    const notAFolder = path.join(harness.scratchDir(), "backups");
    writeFileSync(notAFolder, "a file where the backup folder should be");
    const server = await harness.start({ DATA_DIR: dataDir, BACKUP_DIR: notAFolder });
    expect(await firstBackupLine(server)).toMatch(/^Newsletter backup failed, sign-ups go on \(.+\); next try in 24/);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("ok");
    expect((await subscribe(server.url, "unaffected@example.com"))?.message).toBe(SUBSCRIBED_TOAST.message);
    expect(storedEmails(dataDir)).toEqual(["unaffected@example.com"]);
    expect(backupLines(server)).toHaveLength(1);
  });
});

describe("a full backup disk never stops sign-ups (a tmpfs, root only)", () => {
  const mounts: string[] = [];
  // Before the file's own cleanup: the servers stop first, then their disks go.
  afterEach(async () => {
    await harness.cleanup();
    for (const mountPoint of mounts.splice(0)) {
      execFileSync("umount", [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  /** A new tmpfs of `size` (e.g. "16m"), unmounted and removed after the test. */
  function smallDisk(size: string) {
    const mountPoint = tempDir("portfolio-backups-disk-");
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mountPoint]);
    mounts.push(mountPoint);
    return mountPoint;
  }

  /** Sign-ups are stored and /healthz says ok, after the backup has failed. */
  async function stillTakingSignUps(server: ServerProcess, dataDir: string, email: string) {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect((await subscribe(server.url, email))?.message).toBe(SUBSCRIBED_TOAST.message);
    expect(storedEmails(dataDir)).toContain(email);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }

  it.skipIf(!root)(
    "on DATA_DIR's own disk, skips a copy that would take the room sign-ups need: one line, no file left",
    async () => {
      const disk = smallDisk("16m");
      const dataDir = dataDirWith(15_000, path.join(disk, "data"));
      const listBytes = statSync(path.join(dataDir, SQLITE_FILE_NAME)).size;
      // Room for the copy and a little more, so that a copy made anyway would leave the disk (DATA_DIR's, with the
      // default BACKUP_DIR) under what a sign-up needs: it would stop sign-ups and turn /healthz to 503.
      writeFileSync(path.join(disk, "filler"), Buffer.alloc(freeBytesOn(disk) - listBytes - 128 * 1024));
      const server = await harness.start({ DATA_DIR: dataDir });
      const line = await firstBackupLine(server);
      await stillTakingSignUps(server, dataDir, "room-left@example.com");
      expect(line).toMatch(
        /^Newsletter backup failed, sign-ups go on \(.+ has \d+ KiB free; a copy needs \d+ KiB\); next try in 24/,
      );
      expect(readdirSync(path.join(dataDir, "backups"))).toEqual([]);
      expect(backupLines(server)).toHaveLength(1);
      await server.stop();
    },
    SLOW,
  );

  it.skipIf(!root)(
    "on a backup disk of its own that is full: one line, no partial file, sign-ups and /healthz go on",
    async () => {
      const disk = smallDisk("1m");
      const backupDir = path.join(disk, "backups");
      mkdirSync(backupDir);
      writeFileSync(path.join(disk, "filler"), Buffer.alloc(freeBytesOn(disk)));
      expect(freeBytesOn(disk)).toBe(0);
      const dataDir = dataDirWith(2_000);
      const server = await harness.start({ DATA_DIR: dataDir, BACKUP_DIR: backupDir });
      expect(await firstBackupLine(server)).toMatch(/^Newsletter backup failed, sign-ups go on \(.+\); next try in 24/);
      expect(readdirSync(backupDir)).toEqual([]);
      expect(existsSync(path.join(dataDir, "backups"))).toBe(false);
      await stillTakingSignUps(server, dataDir, "backup-disk-full@example.com");
      expect(backupLines(server)).toHaveLength(1);
      await server.stop();
    },
    SLOW,
  );
});
