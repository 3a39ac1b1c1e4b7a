// Sign-ups under load and faults (signals, a deleted -wal file, a full disk), and the owner's tools beside the
// running server: every acknowledged row is stored, and what the tools say is what the list holds.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { csvValue } from "~/newsletter/admin/subscribers-csv.server";
import { FORMULA_START, readCsv } from "../../../support/csv";
import { postForm, storedEmails, subscribe } from "../../../support/newsletter/http";
import { inPool, serverHarness, tempDir } from "../../../support/production-server";
import { countRows, subscribers } from "../../../support/subscribers-cli";
import { body } from "../../../support/abuse";

const harness = serverHarness("portfolio-abuse-");

describe("sign-ups under load and faults: every acknowledged row is stored", () => {
  afterEach(() => harness.cleanup());

  it("stores 500 concurrent sign-ups as 500 rows", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const emails = Array.from({ length: 500 }, (_, i) => `load-${i}@example.com`);
    const results = await Promise.all(emails.map((email) => postForm(server.url, body(email))));
    expect(results.every((result) => result.status === 303)).toBe(true);
    expect(storedEmails(dataDir).sort()).toEqual([...emails].sort());
  });

  it.each(["SIGTERM", "SIGKILL"] as const)(
    "keeps every acknowledged row when %s comes mid-load, and the file passes integrity_check",
    async (signal) => {
      const dataDir = harness.scratchDir();
      const server = await harness.start({ DATA_DIR: dataDir });
      try {
        const acknowledged: string[] = [];
        // 300 sign-ups, 30 at a time; the signal comes once 50 are acknowledged, while the others are in flight.
        const emails = Array.from({ length: 300 }, (_, i) => `${signal.toLowerCase()}-${i}@example.com`);
        await inPool(emails, 30, async (email) => {
          try {
            const result = await postForm(server.url, body(email));
            if (result.status === 303) acknowledged.push(email);
            if (acknowledged.length === 50) server.child.kill(signal);
          } catch {
            // Cut off by the signal: not acknowledged, so nothing is promised.
          }
        });
        await server.exited;
        expect(acknowledged.length).toBeGreaterThan(0);
        const stored = new Set(storedEmails(dataDir));
        expect(acknowledged.filter((email) => !stored.has(email))).toEqual([]);
        const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"));
        expect(db.prepare("pragma integrity_check").get()).toEqual({ integrity_check: "ok" });
        db.close();
      } finally {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      }
    },
  );

  it("keeps every acknowledged row when the -wal file is deleted under it, through a SIGKILL", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const emails = Array.from({ length: 11 }, (_, i) => `wal-${i}@example.com`);
    expect((await subscribe(server.url, emails[0]!))?.message).toBe("Successfully subscribed!");
    rmSync(path.join(dataDir, "newsletter.sqlite-wal"));
    for (const email of emails.slice(1)) {
      expect((await subscribe(server.url, email))?.message).toBe("Successfully subscribed!");
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill("SIGKILL");
    await server.exited;
    expect(storedEmails(dataDir)).toEqual(emails);
  });

  it("refuses sign-ups with 503 when a deleted -wal cannot be saved; the owner's tool names the log; a clean stop saves it", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const file = path.join(dataDir, "newsletter.sqlite");
    await server.waitForOutput("Newsletter backup:");
    const backup = path.join(dataDir, "backups", readdirSync(path.join(dataDir, "backups"))[0]!);
    expect((await subscribe(server.url, "before@example.com"))?.message).toBe("Successfully subscribed!");
    // Another program reading the list (the owner's sqlite3, a copy under way) holds a snapshot of it, and sign-ups
    // go on: the log now holds rows that cannot be copied into the file while that reader needs the older state.
    const reader = new DatabaseSync(file);
    const acknowledged = ["before@example.com"];
    try {
      reader.exec("begin");
      reader.prepare("select count(*) from newsletter_subscribers").get();
      for (const email of ["after-1@example.com", "after-2@example.com"]) {
        expect((await subscribe(server.url, email))?.message).toBe("Successfully subscribed!");
        acknowledged.push(email);
      }
      rmSync(`${file}-wal`);
      expect((await subscribe(server.url, "while-lost@example.com"))?.message).toBe("Something went wrong");
      const probe = await fetch(`${server.url}/healthz`);
      expect(probe.status).toBe(503);
      await probe.arrayBuffer();
      expect(server.output()).toContain("could not be saved");
      expect(server.output()).toContain("stop it cleanly");

      // The owner's tool, meanwhile: the log is named, and neither DATA_DIR nor a damaged file is blamed.
      const count = await subscribers(dataDir, ["count"]);
      expect(count.code).toBe(1);
      expect(count.stdout).toBe("");
      expect(count.stderr).toContain(`${file}-wal`);
      expect(count.stderr).toContain("was deleted or replaced while the server had the list open");
      expect(count.stderr).toContain("stop it cleanly");
      expect(count.stderr).not.toContain("DATA_DIR");
      expect(count.stderr).not.toContain("damaged");
      // A restore now would put the old backup in place of the file the server still writes: it refuses.
      const restore = await subscribers(dataDir, ["restore", backup]);
      expect(restore.code).toBe(1);
      expect(restore.stderr).toContain(`${file}-wal`);
      expect(restore.stderr).not.toContain("Restored");
      expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
    } finally {
      reader.exec("rollback");
      reader.close();
    }
    // What the tool says to do: a clean stop writes what the deleted log held into the file.
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(storedEmails(dataDir)).toEqual(acknowledged);
    const count = await subscribers(dataDir, ["count"]);
    expect(count).toMatchObject({ code: 0, stdout: `${acknowledged.length}\n` });
  }, 60_000);

  it("answers 300 /healthz probes without a commit each (the log does not grow)", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const wal = path.join(dataDir, "newsletter.sqlite-wal");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const size = statSync(wal).size;
    await inPool(Array.from({ length: 300 }), 10, async () => {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    });
    // One commit is a page plus its frame header (4,120 bytes); a probe every few seconds may add one or two.
    expect(statSync(wal).size - size).toBeLessThanOrEqual(2 * 4_120);
  });

  it("says 503 on /healthz and stores nothing while the file is gone, and 200 once it is back", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const file = path.join(dataDir, "newsletter.sqlite");
    renameSync(file, `${file}.moved`);
    const probe = await fetch(`${server.url}/healthz`);
    expect(probe.status).toBe(503);
    expect(probe.headers.get("cache-control")).toBe("no-store");
    expect(await probe.text()).toBe("unavailable");
    expect((await subscribe(server.url, "while-gone@example.com"))?.message).toBe("Something went wrong");
    renameSync(`${file}.moved`, file);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(storedEmails(dataDir)).not.toContain("while-gone@example.com");
    expect(server.output()).toContain("Newsletter store: cannot write");
    expect(server.output()).toContain("can be written again");
  });

  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    "says 503 on /healthz while the disk is full, and 200 once there is room (tmpfs, root)",
    async () => {
      const mountPoint = tempDir("portfolio-abuse-tmpfs-");
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]);
      const dataDir = path.join(mountPoint, "data");
      mkdirSync(dataDir);
      const server = await harness.start({ DATA_DIR: dataDir });
      try {
        expect((await subscribe(server.url, "before-full@example.com"))?.message).toBe("Successfully subscribed!");
        const filler = path.join(mountPoint, "filler");
        try {
          writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
        } catch {
          // ENOSPC: the disk is now full, which is the point.
        }
        expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
        expect((await subscribe(server.url, "while-full@example.com"))?.message).toBe("Something went wrong");
        rmSync(filler);
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        expect((await subscribe(server.url, "after-full@example.com"))?.message).toBe("Successfully subscribed!");
        expect(storedEmails(dataDir)).toEqual(["before-full@example.com", "after-full@example.com"]);
        expect(server.output()).toContain("is full");
      } finally {
        await server.stop();
        execFileSync("umount", [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      }
    },
  );
});

describe("the owner's tools beside the server: what they say is what the list holds", () => {
  afterEach(() => harness.cleanup());

  it("exports every address signed up through the form so that the CSV reads back exactly, with no formula", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    // Addresses the browser's rule takes that start like a spreadsheet formula, or like the export's own mark.
    const emails = [
      "-csv@x.co",
      "'-csv@x.co",
      "''-csv@x.co",
      "plain@x.co",
      "'plain@x.co",
      "=1+1@x.co",
      "+1@x.co",
      "-2+3@x.co",
      "=cmd|'/ccalc'!A0@x.co",
      "%0d%0a=1@x.co",
      "a.b!#$&*/?^_`{|}~@x.co",
      `${"y".repeat(64)}@${"z".repeat(63)}.co`,
    ];
    for (const email of emails)
      expect((await subscribe(server.url, email))?.message, email).toBe("Successfully subscribed!");
    const stored = storedEmails(dataDir);
    expect(stored).toEqual(emails);

    const run = await subscribers(dataDir, ["export", "--csv"]);
    expect(run.code).toBe(0);
    const [header, ...records] = readCsv(run.stdout);
    expect(header).toEqual([
      "email",
      "subscribed_at",
      "unsubscribe_link",
      "state",
      "confirmed_at",
      "suppressed",
      "suppressed_at",
      "suppressed_because",
    ]);
    const fields = records.map((record) => record[0]!);
    expect(new Set(fields).size).toBe(stored.length);
    expect(fields.map(csvValue)).toEqual(stored);
    for (const record of records) for (const field of record) expect(field).not.toMatch(FORMULA_START);
  });

  it("backup prints how many subscribers the copy holds while sign-ups go on, not the live count", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const target = path.join(harness.scratchDir(), "copy.sqlite");
    const acknowledged: string[] = [];
    let backupDone = false;
    let afterBackup = 0;
    // Sign-ups from before the tool starts until 20 after it has finished: the live list grows all along, so its
    // count differs from the copy's whenever it is read. Bounded: at most 5,000 sign-ups or 40 s.
    const deadline = Date.now() + 40_000;
    let next = 0;
    const signUps = inPool(Array.from({ length: 4 }), 4, async () => {
      while (afterBackup < 20 && next < 5_000 && Date.now() < deadline) {
        const email = `during-backup-${next++}@example.com`;
        const result = await postForm(server.url, body(email));
        expect(result.status).toBe(303);
        acknowledged.push(email);
        if (backupDone) afterBackup += 1;
      }
    });
    while (acknowledged.length < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const run = await subscribers(dataDir, ["backup", target]);
    backupDone = true;
    await signUps;
    expect(run.code).toBe(0);
    expect(afterBackup).toBeGreaterThanOrEqual(20);

    const printed = Number(/^Copied (\d+) subscribers to /m.exec(run.stderr)?.[1]);
    const inCopy = countRows(target);
    expect(printed).toBe(inCopy);
    expect(inCopy).toBeGreaterThanOrEqual(20);
    const live = storedEmails(dataDir);
    expect(live).toHaveLength(acknowledged.length);
    expect(inCopy).toBeLessThan(live.length);
    // One moment of the list: every row committed before it, none after.
    const copy = new DatabaseSync(target, { readOnly: true });
    try {
      const rows = copy.prepare("select email from newsletter_subscribers order by id").all() as { email: string }[];
      expect(rows.map((row) => row.email)).toEqual(live.slice(0, inCopy));
    } finally {
      copy.close();
    }
  }, 90_000);
});
