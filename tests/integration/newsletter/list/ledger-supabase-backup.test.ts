/**
 * The owner's backup and restore with the list in Supabase, end to end: the production server and the owner's commands
 * talk to a thin stand-in of Supabase's HTTP API whose every answer comes from the real migrations on PGlite
 * (tests/support/stub-supabase/); a real SMTP relay on loopback; Mailchimp's own export layout (tests/fixtures/import/).
 * The embedded store's twin is ledger-done-when.test.ts.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { importFixture } from "../../../support/import-fixture";
import { newsletter } from "../../../support/newsletter/cli";
import {
  CONFIRM_SECRET,
  ownerEnv,
  sendEnvOf,
  sendUpdate,
  supabaseWorld,
} from "../../../support/newsletter/supabase-world";
import { rowOf, rows, tombstoneReasons } from "../../../support/stub-supabase/database";
import { startSignedStub } from "../../../support/stub-supabase/signed-stub";
import type { StubSupabase } from "../../../support/stub-supabase/stub";
import { subscribers } from "../../../support/subscribers-cli";

const FIRST = "2026-11-20-first";
const world = supabaseWorld("ledger-supabase-backup-");

const cliData = () => path.join(world.dir, "cli-data");
const backupDir = () => path.join(world.dir, "backups");
const commandEnv = (stub = world.rest) => ownerEnv(stub, { BACKUP_DIR: backupDir() });
const owner = (args: string[], stub = world.rest) => subscribers(cliData(), args, commandEnv(stub));
const sendEnvNow = () => sendEnvOf(world, commandEnv());
const send = (name: string) => sendUpdate(world, commandEnv(), name);

const statusOf = async (name: string) => {
  const run = await newsletter(sendEnvNow(), ["status"]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split("\n").find((line) => line.startsWith(`${name}\t`));
};

/** What a backup file holds of the ledger: its key and its tombstones. */
function ledgerOf(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const key = db.prepare("select value from newsletter_ledger where name = 'key'").get() as { value: string };
    const tombstones = db.prepare("select mailbox, reason from newsletter_tombstones").all() as {
      mailbox: string;
      reason: string;
    }[];
    return {
      key: key.value,
      mailboxes: tombstones.map((row) => row.mailbox),
      reasons: tombstones.map((row) => row.reason),
    };
  } finally {
    db.close();
  }
}

const supabaseKey = async (stub: StubSupabase) =>
  (await stub.db.query<{ value: string }>("select value from newsletter_private.settings where name = 'ledger_key'"))
    .rows[0]!.value;

describe("the owner's backups, Supabase", () => {
  it("an older backup restores the reader removed by mistake, keeps out the one who left since, and moves whole", async () => {
    const subscribed = importFixture("mailchimp-subscribed.csv");
    const imported = await owner(["import", subscribed]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await send(FIRST)).sort()).toEqual(["ivan@example.com", "joan@example.net"]);
    const line = await statusOf(FIRST);
    expect(line).toMatch(/\tsent to 2 of 2, finished /);

    const backup = path.join(backupDir(), "before.sqlite");
    const made = await owner(["backup", backup]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Copied 2 subscribers to ${backup}.`);

    // Ivan presses the one-click link in his mail; then the owner imports the same export again.
    const ivanMail = world.relay.mails.find((mail) => mail.envelopeTo[0] === "ivan@example.com")!;
    const link = new URL(/^List-Unsubscribe: <([^>]+)>/m.exec(ivanMail.raw)![1]!);
    const unsubscribed = await fetch(`${world.server.url}${link.pathname}${link.search}`, {
      method: "POST",
      body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }),
    });
    expect(unsubscribed.status).toBe(200);
    const again = await owner(["import", subscribed]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("0 readers added as confirmed.");

    // The owner removes Joan by mistake, in the SQL editor: the finished send's record does not change.
    const joanBefore = await rowOf(world.rest.db, "joan@example.net");
    await world.rest.db.query("delete from public.newsletter_subscribers where email = 'joan@example.net'");
    expect(await statusOf(FIRST)).toBe(line);

    // A file that is not a backup is refused, and nothing changes.
    const bogus = path.join(world.dir, "bogus.sqlite");
    writeFileSync(bogus, "not a database");
    const refused = await owner(["restore", bogus]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("is not a backup of the newsletter list");
    expect((await rows(world.rest.db)).map((row) => row.email)).toEqual([]);

    // The backup (made before Ivan left, holding imported readers) is fine, and restores.
    const listing = await owner(["backups"]);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(/before\.sqlite\t.*\t2 subscribers$/m);
    const restore = await owner(["restore", backup]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stderr).toMatch(/^Kept a copy of the list as it was \(0 subscribers\): .*replaced-/m);
    expect(restore.stderr).toContain(`Put back 1 address from ${backup}: joan@example.net`);
    expect(restore.stderr).toContain("Left out 1 reader who left the list");
    expect(restore.stderr).toContain("The list now holds 1 subscriber.");
    const joan = await rowOf(world.rest.db, "joan@example.net");
    // Her consent record and her link come back as they were.
    for (const column of ["state", "consent_page", "unsubscribe_token", "created_at", "confirmed_at"] as const) {
      expect(joan?.[column], column).toEqual(joanBefore?.[column]);
    }
    expect(await statusOf(FIRST)).toBe(line);
    expect(await send("2026-11-27-second")).toEqual(["joan@example.net"]);
    expect(await statusOf(FIRST)).toBe(line);

    // A backup made now carries Ivan's tombstone with the key it was made with.
    const after = path.join(backupDir(), "after.sqlite");
    expect((await owner(["backup", after])).code).toBe(0);
    const key = await supabaseKey(world.rest);
    expect(ledgerOf(after)).toEqual({
      key,
      mailboxes: [mailboxHash(key, "ivan@example.com")],
      reasons: ["unsubscribed"],
    });

    // The same file as the embedded store's: restored into an empty DATA_DIR, the embedded list knows Ivan left.
    const embedded = path.join(world.dir, "embedded-data");
    const intoFile = await subscribers(embedded, ["restore", after], { BACKUP_DIR: path.join(embedded, "backups") });
    expect(intoFile.code, intoFile.stderr).toBe(0);
    const shown = await subscribers(embedded, ["show", "ivan@example.com"]);
    expect(shown.stderr).toMatch(/^ivan@example\.com is not on the list; its mailbox left it \(unsubscribed at /);
    expect((await subscribers(embedded, ["list"])).stdout).toContain("joan@example.net");

    // Restored into a new project (the old one lost), the list takes the backup's key and keeps who left: the export
    // imported there again does not bring Ivan back.
    const fresh = await startSignedStub(CONFIRM_SECRET);
    try {
      const moved = await owner(["restore", after], fresh);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toContain("Brought back the record of 1 mailbox that left the list.");
      expect(await supabaseKey(fresh)).toBe(await supabaseKey(world.rest));
      expect(await tombstoneReasons(fresh.db)).toEqual(["unsubscribed"]);
      const there = await owner(["import", subscribed], fresh);
      expect(there.code, there.stderr).toBe(0);
      expect(there.stderr).toContain("0 readers added as confirmed.");
      expect((await rows(fresh.db)).map((row) => row.email)).toEqual(["joan@example.net"]);
    } finally {
      await fresh.close();
    }
  }, 300_000);

  it("the backup and restore functions answer the service role only", async () => {
    for (const name of ["newsletter_backup_page", "newsletter_restore_page"]) {
      const answer = await fetch(`${world.rest.url}/rest/v1/rpc/${name}`, {
        method: "POST",
        headers: {
          apikey: world.rest.anonKey,
          authorization: `Bearer ${world.rest.anonKey}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(
          name === "newsletter_backup_page"
            ? { part: "tombstones", after: null, size: 10 }
            : { backup_key: null, readers: [], tombstones: [], wordings: [] },
        ),
      });
      expect(answer.status, name).toBe(401);
    }
    const without = await subscribers(cliData(), ["backup", path.join(world.dir, "nokey.sqlite")], {
      ...commandEnv(),
      SUPABASE_SERVICE_ROLE_KEY: "",
    });
    expect(without.code).not.toBe(0);
    expect(without.stderr).toContain("SUPABASE_SERVICE_ROLE_KEY=<key> npm run subscribers -- backup <file>");
  });
});
