// A restore keeps each reader's confirmation state and consent record (double opt-in): a pending reader stays pending,
// a confirmed one keeps when, from which page and to which wording they agreed, in both restore modes; a backup from
// before double opt-in brings its readers back confirmed, as the schema's migration counts them; and a backup whose
// state or consent columns hold what the store never writes is refused before anything changes.
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { restoreBackup } from "~/newsletter/backups/automatic-backups.server";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { storeScratch } from "../../../support/store-scratch";
import { subscribers } from "../../../support/subscribers-cli";
import { withoutMail } from "../../../support/newsletter/without-mail";

const { scratch, openStore, closeNow } = storeScratch("portfolio-restore-consent-");
const live = () => path.join(scratch.dataDir, SQLITE_FILE_NAME);

/** Each CLI run loads the production build: a second or more on a busy machine. */
const SLOW = 90_000;
const PENDING = "pending-reader@example.com";
const CONFIRMED = "confirmed-reader@example.com";
const FROM_BEFORE = "from-before@example.com";
/** An hour ago: well inside a pending reader's 7 days, whenever the test runs (the tools expire against the clock). */
const SIGNED_UP = Date.now() - 60 * 60_000;
const PENDING_TOKEN = "token-mailed-to-the-pending-reader";

/**
 * A live list in DATA_DIR with a reader from before double opt-in, one who confirmed and one still pending, each
 * through the store's own functions; closed again, as the owner's tools find it with the server stopped.
 */
async function listWithConsent() {
  const store = openStore();
  expect((await store.signUp(FROM_BEFORE, withoutMail())).outcome).toBe("subscribed");
  const pending = (now: number) => ({ state: "pending" as const, consent: dialogConsent("/"), now });
  expect((await store.signUp(CONFIRMED, pending(SIGNED_UP))).outcome).toBe("subscribed");
  expect(await store.issueConfirmToken(CONFIRMED, hashToken("token-of-the-confirmed-reader"), SIGNED_UP + 1000)).toBe(
    "issued",
  );
  expect(await store.confirm("token-of-the-confirmed-reader", SIGNED_UP + 60_000)).toBe("confirmed");
  expect((await store.signUp(PENDING, pending(SIGNED_UP + 60_000))).outcome).toBe("subscribed");
  expect(await store.issueConfirmToken(PENDING, hashToken(PENDING_TOKEN), SIGNED_UP + 61_000)).toBe("issued");
  closeNow(store);
}

/** Everything the store keeps about its readers and the wordings, read straight from a file (no checks). */
function everythingIn(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return {
      readers: db
        .prepare(
          "select email, created_at, unsubscribe_token, state, confirmed_at, consent_page, consent_version, " +
            "confirm_requested_at, confirm_token_hash, confirm_token_at from newsletter_subscribers order by email",
        )
        .all(),
      wordings: db.prepare("select * from newsletter_consent_wordings order by version").all(),
    };
  } finally {
    db.close();
  }
}

/** What `npm run subscribers -- show` prints for each reader. */
async function shown(emails = [PENDING, CONFIRMED, FROM_BEFORE]) {
  const out: Record<string, string> = {};
  for (const email of emails) {
    const run = await subscribers(scratch.dataDir, ["show", email]);
    expect(run.code, run.stderr).toBe(0);
    out[email] = run.stdout;
  }
  return out;
}

const removeLiveFile = () => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${live()}${suffix}`, { force: true });
};

describe("a restore keeps the readers' confirmation state and consent record", () => {
  it(
    "replacing a missing file: the pending reader stays pending, the confirmed one keeps their record",
    async () => {
      await listWithConsent();
      const before = await shown();
      expect(before[PENDING]).toContain("state: pending");
      expect(before[CONFIRMED]).toContain("state: confirmed");
      expect(before[CONFIRMED]).toContain("wording agreed to:");
      const stored = everythingIn(live());
      const backup = path.join(scratch.dir, "before.sqlite");
      const copied = await subscribers(scratch.dataDir, ["backup", backup]);
      expect(copied.code, copied.stderr).toBe(0);
      // The copy itself holds the new columns and the wordings, and the listing reads it.
      expect(everythingIn(backup)).toEqual(stored);
      const listing = await subscribers(scratch.dataDir, ["backups"], { BACKUP_DIR: scratch.dir });
      expect(listing.stdout).toMatch(/before\.sqlite\t.*\t3 subscribers\n/);

      removeLiveFile();
      const restored = await subscribers(scratch.dataDir, ["restore", backup]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stderr).toContain("Restored 3 subscribers");

      expect(await shown()).toEqual(before);
      expect(everythingIn(live())).toEqual(stored);
      const count = await subscribers(scratch.dataDir, ["count"]);
      expect(count.stderr).toContain("2 confirmed, 1 pending");
      // The pending reader's mailed link still confirms them.
      const store = openStore();
      expect(await store.confirm(PENDING_TOKEN, SIGNED_UP + 120_000)).toBe("confirmed");
    },
    SLOW,
  );

  it(
    "putting rows back into a live list keeps each row's state and consent record",
    async () => {
      await listWithConsent();
      const before = await shown();
      const stored = everythingIn(live());
      const backup = path.join(scratch.dir, "before.sqlite");
      const store = openStore();
      await store.owner.backup(backup);
      expect(store.owner.remove(PENDING)).toBe(true);
      expect(store.owner.remove(CONFIRMED)).toBe(true);
      closeNow(store);

      const report = await restoreBackup(backup, scratch.dataDir, scratch.backupDir);
      expect(report).toMatchObject({ kind: "added back", added: [CONFIRMED, PENDING], alreadyThere: 1 });
      expect(await shown()).toEqual(before);
      expect(everythingIn(live())).toEqual(stored);
    },
    SLOW,
  );

  it(
    "a backup from before double opt-in brings its readers back confirmed, in both modes",
    async () => {
      const old = path.join(scratch.dir, "old.sqlite");
      const db = new DatabaseSync(old);
      db.exec(`
        create table newsletter_subscribers (id integer primary key, email text not null,
          created_at text not null, unsubscribe_token text);
        insert into newsletter_subscribers (email, created_at, unsubscribe_token) values
          ('early@example.com', '2026-10-01T08:00:00.000Z', '0b6c2f0e-8a3d-4c1e-9f2a-1b2c3d4e5f60'),
          ('earlier@example.com', '2026-09-01T08:00:00.000Z', null);
      `);
      db.close();

      expect(await restoreBackup(old, scratch.dataDir, scratch.backupDir)).toMatchObject({ kind: "replaced" });
      const [early] = Object.values(await shown(["early@example.com"]));
      expect(early).toContain("state: confirmed\n");
      expect(early).toContain("confirmed: before confirmation by mail existed\n");
      expect(early).toContain("from page: unknown (signed up before consent was recorded)\n");
      expect((await subscribers(scratch.dataDir, ["count"])).stderr).toContain("2 confirmed, 0 pending");

      const store = openStore();
      expect(store.owner.remove("earlier@example.com")).toBe(true);
      closeNow(store);
      const later = new Date(Date.now() + 2000);
      const report = await restoreBackup(old, scratch.dataDir, scratch.backupDir, later);
      expect(report).toMatchObject({ kind: "added back", added: ["earlier@example.com"] });
      expect(everythingIn(live()).readers).toEqual([
        expect.objectContaining({ email: "earlier@example.com", state: "confirmed", confirmed_at: null }),
        expect.objectContaining({ email: "early@example.com", state: "confirmed", confirmed_at: null }),
      ]);
    },
    SLOW,
  );
});

describe("a restore refuses a backup whose confirmation columns the store could not have written", () => {
  const cases: [string, string, RegExp][] = [
    ["a state that is neither", "update newsletter_subscribers set state = 'maybe'", /its state, "maybe", is neither/],
    [
      "a confirmation time that is not the store's",
      "update newsletter_subscribers set confirmed_at = 'last week' where state = 'confirmed'",
      /its confirmedAt, "last week", is not a time the store writes/,
    ],
    [
      "a token hash of the wrong form",
      "update newsletter_subscribers set confirm_token_hash = 'abc' where state = 'pending'",
      /its confirmation token hash, "abc", is not of the store's form/,
    ],
    [
      "a wording whose version is not its text's digest",
      "update newsletter_consent_wordings set wording = 'Sign me up for everything'",
      /a consent wording whose version, "[0-9a-f]{16}", is not the digest of its text/,
    ],
  ];

  it.each(cases)(
    "%s: refused with a message, the live list untouched, in both modes",
    async (_name, craft, message) => {
      await listWithConsent();
      const backup = path.join(scratch.dir, "crafted.sqlite");
      const store = openStore();
      await store.owner.backup(backup);
      expect(store.owner.remove(PENDING)).toBe(true);
      closeNow(store);
      const db = new DatabaseSync(backup);
      db.exec(craft);
      db.close();

      const liveBefore = everythingIn(live());
      const bytes = readFileSync(live());
      const merge = await subscribers(scratch.dataDir, ["restore", backup]);
      expect(merge.code).not.toBe(0);
      expect(merge.stderr).toMatch(/crafted\.sqlite cannot be restored: it holds /);
      expect(merge.stderr).toMatch(message);
      expect(merge.stderr).toContain("nothing was changed");
      expect(readFileSync(live()).equals(bytes)).toBe(true);
      expect(everythingIn(live())).toEqual(liveBefore);

      removeLiveFile();
      await expect(restoreBackup(backup, scratch.dataDir, scratch.backupDir)).rejects.toThrow(message);
      expect(existsSync(live())).toBe(false);
    },
    SLOW,
  );
});
