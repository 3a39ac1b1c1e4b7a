// The owner's tools (`npm run subscribers`, scripts/subscribers.mjs) as the owner runs them: a child process on the
// last production build, beside a running server or alone. Each run loads the build (a second or more on a busy
// machine), so the tests that run it several times get more time than the default.
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { postForm, storedEmails, subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { subscribers } from "../../../support/subscribers-cli";

const harness = serverHarness("portfolio-cli-");
afterEach(() => harness.cleanup());

const SLOW = 90_000;

const signUp = (url: string, email: string) => postForm(url, new URLSearchParams({ email, website: "" }));

describe("npm run subscribers", () => {
  it("names a damaged database file as the problem, not DATA_DIR", async () => {
    const dataDir = harness.scratchDir();
    writeFileSync(path.join(dataDir, "newsletter.sqlite"), "not a database at all ".repeat(200));
    const run = await subscribers(dataDir, ["count"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("newsletter.sqlite");
    expect(run.stderr).toContain("file is not a database");
    expect(run.stderr).not.toContain("Invalid environment");
  });
});

describe("backups and restore, with the production server", () => {
  const tokenOf = (dataDir: string, email: string) => {
    const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"), { readOnly: true });
    try {
      return (
        db.prepare("select unsubscribe_token as token from newsletter_subscribers where email = ?").get(email) as {
          token: string;
        }
      ).token;
    } finally {
      db.close();
    }
  };

  it(
    "leaves a valid backup in DATA_DIR/backups within seconds of starting on an empty DATA_DIR",
    async () => {
      const dataDir = harness.scratchDir();
      const server = await harness.start({ DATA_DIR: dataDir });
      const folder = path.join(dataDir, "backups");
      const deadline = Date.now() + 5_000;
      while (!(existsSync(folder) && readdirSync(folder).some((name) => name.endsWith(".sqlite")))) {
        if (Date.now() > deadline) throw new Error(`no backup within 5 s; output:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const listed = await subscribers(dataDir, ["backups"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/backups\/newsletter-\d{4}-\d\d-\d\dT\d{6}Z\.sqlite\t.+\t0 subscribers\n$/);
      expect(server.output()).toContain("Newsletter backup: 0 subscribers in");
    },
    SLOW,
  );

  it(
    "brings back every subscriber after the database file is deleted (server stopped, then started again)",
    async () => {
      const dataDir = harness.scratchDir();
      const first = await harness.start({ DATA_DIR: dataDir });
      const emails = Array.from({ length: 30 }, (_, i) => `lost-${i}@example.com`);
      for (const email of emails) expect((await signUp(first.url, email)).status).toBe(303);
      const backup = path.join(harness.scratchDir(), "before-the-loss.sqlite");
      expect((await subscribers(dataDir, ["backup", backup])).code).toBe(0);
      await first.stop();
      for (const suffix of ["", "-wal", "-shm"])
        rmSync(path.join(dataDir, `newsletter.sqlite${suffix}`), { force: true });

      const run = await subscribers(dataDir, ["restore", backup]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("could not be used (it was missing)");
      expect(run.stderr).toContain(`Restored 30 subscribers from ${backup}.`);
      const second = await harness.start({ DATA_DIR: dataDir });
      expect(storedEmails(dataDir)).toEqual(emails);
      expect((await subscribe(second.url, "lost-0@example.com"))?.message).toBe("Already subscribed");
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    },
    SLOW,
  );

  it(
    "puts back addresses removed by mistake while the server runs, and not a reader who unsubscribed since",
    async () => {
      const dataDir = harness.scratchDir();
      const server = await harness.start({ DATA_DIR: dataDir });
      const emails = Array.from({ length: 10 }, (_, i) => `kept-${i}@example.com`);
      for (const email of emails) expect((await signUp(server.url, email)).status).toBe(303);
      const backup = path.join(harness.scratchDir(), "daily.sqlite");
      expect((await subscribers(dataDir, ["backup", backup])).code).toBe(0);
      // One reader leaves by the link in a mail (one-click); the owner removes two addresses by mistake.
      const token = tokenOf(dataDir, "kept-9@example.com");
      const left = await fetch(`${server.url}/unsubscribe?token=${token}`, {
        method: "POST",
        body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }),
      });
      expect(left.status).toBe(200);
      for (const address of ["kept-3@example.com", "kept-4@example.com"]) {
        expect((await subscribers(dataDir, ["remove", address])).code).toBe(0);
      }
      expect((await signUp(server.url, "after-backup@example.com")).status).toBe(303);

      const run = await subscribers(dataDir, ["restore", backup]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("Kept a copy of the list as it was (8 subscribers)");
      expect(run.stderr).toContain("Put back 2 addresses from");
      expect(run.stderr).toContain("kept-3@example.com, kept-4@example.com");
      expect(run.stderr).toContain(
        "Left out 1 reader who left the list (unsubscribed, complained or bounced) after the backup was made.",
      );
      expect(run.stderr).toContain("The list now holds 10 subscribers.");
      expect(storedEmails(dataDir).sort()).toEqual(
        [...emails.filter((email) => email !== "kept-9@example.com"), "after-backup@example.com"].sort(),
      );
      // The running server sees them at once, and goes on.
      expect((await subscribe(server.url, "kept-3@example.com"))?.message).toBe("Already subscribed");
      expect((await subscribe(server.url, "later@example.com"))?.message).toBe("Successfully subscribed!");
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
    SLOW,
  );

  it(
    "refuses to restore a file that is not a backup, and leaves the list as it is",
    async () => {
      const dataDir = harness.scratchDir();
      const server = await harness.start({ DATA_DIR: dataDir });
      expect((await signUp(server.url, "stays@example.com")).status).toBe(303);
      const impostor = path.join(harness.scratchDir(), "subscribers.csv");
      writeFileSync(impostor, "email\r\nsomeone@example.com\r\n");
      const run = await subscribers(dataDir, ["restore", impostor]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${impostor} is not a backup of the newsletter list: file is not a database`);
      expect(storedEmails(dataDir)).toEqual(["stays@example.com"]);
    },
    SLOW,
  );
});
