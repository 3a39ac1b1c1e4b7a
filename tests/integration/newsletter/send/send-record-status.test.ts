/**
 * A finished send's line in `npm run newsletter -- status` is its own record: the production build's commands against
 * a loopback relay that refuses one reader with 550, then every later door to the embedded list (unsuppress, remove,
 * a reader's unsubscribe, an import of Mailchimp's export, a restore of a backup) leaves that line byte for byte.
 */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { OUTBOX_FILE_NAME } from "~/mail/settings.server";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { importFixture } from "../../../support/import-fixture";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { subscribers } from "../../../support/subscribers-cli";
import { addReaders, newsletter } from "../../../support/newsletter/cli";
import { serverHarness } from "../../../support/production-server";
import { basicAuth, fixture, POSTMARK_AUTH } from "../../../support/webhook-signing";

const FIRST = "2026-11-20-first-launch";
const setup = sendSetupPerTest("send-record-status-", {
  name: FIRST,
  front: { title: "First launch", summary: "It is out" },
  body: "It is **out**.",
});
const harness = serverHarness("send-record-status-");
const readers = ["reader0@example.org", "reader1@example.org", "reader2@example.org", "reader3@example.org"];

async function firstLine() {
  const status = await newsletter(setup.env(), ["status"]);
  expect(status.code, status.stderr).toBe(0);
  const line = status.stdout.split("\n").find((text) => text.startsWith(`${FIRST}\t`));
  expect(line).toBeDefined();
  return line!;
}

async function ok(args: string[]) {
  const run = await subscribers(setup.dataDir, args);
  expect(run.code, run.stderr).toBe(0);
}

describe("a finished send's status line", () => {
  it("is the same after unsuppress, remove, unsubscribe, import and restore", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.reject("reader1@example.org", 550, "5.1.1 <reader1@example.org>: User unknown");
    const first = await newsletter(setup.env(), ["send", FIRST]);
    expect(first.code, first.stderr).toBe(0);
    const before = await firstLine();
    expect(before).toMatch(
      /^[^\t]+\tsent to 3 of 4, 1 failed, finished [^,]+, 3 handed to the relay, 1 bounced, 0 complained$/,
    );
    const backup = path.join(setup.dataDir, "..", "before.sqlite");
    await ok(["backup", backup]);

    await ok(["unsuppress", "reader1@example.org"]);
    expect(await firstLine()).toBe(before);
    await ok(["remove", "reader1@example.org"]);
    expect(await firstLine()).toBe(before);
    await ok(["remove", "reader0@example.org"]);
    expect(await firstLine()).toBe(before);

    const file = path.join(setup.dataDir, SQLITE_FILE_NAME);
    const db = new DatabaseSync(file, { readOnly: true });
    const { token } = db
      .prepare("select unsubscribe_token as token from newsletter_subscribers where email = 'reader2@example.org'")
      .get() as { token: string };
    db.close();
    const list = openSqliteList(setup.dataDir);
    try {
      expect(await list.unsubscribe(token)).toBeTruthy();
    } finally {
      list.close();
    }
    expect(await firstLine()).toBe(before);

    await ok(["import", importFixture("mailchimp-subscribed.csv")]);
    expect(await firstLine()).toBe(before);
    await ok(["restore", backup]);
    expect(await firstLine()).toBe(before);
  }, 180_000);

  it("counts a complaint a relay reports by webhook after the send, and keeps it after the reader is removed", async () => {
    await addReaders(setup.dataDir, ["annoyed@example.org", "reader@example.com"]);
    const first = await newsletter(setup.env(), ["send", FIRST]);
    expect(first.code, first.stderr).toBe(0);
    expect(await firstLine()).toMatch(/, 2 handed to the relay, 0 bounced, 0 complained$/);
    const server = await harness.start({ POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH, DATA_DIR: setup.dataDir });
    try {
      const complaint = await fetch(`${server.url}/webhooks/postmark`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: basicAuth(POSTMARK_AUTH) },
        body: JSON.stringify(fixture("postmark", "subscription-change")),
      });
      expect(complaint.status).toBe(200);
      await server.waitForOutput("Webhook postmark: 1 complained suppressed");
    } finally {
      await harness.cleanup();
    }
    const after = await firstLine();
    expect(after).toMatch(/, 2 handed to the relay, 0 bounced, 1 complained$/);
    await ok(["remove", "annoyed@example.org"]);
    expect(await firstLine()).toBe(after);
  }, 180_000);

  it("says an older version's send did not record who bounced or complained, rather than a false 0", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.reject("reader1@example.org", 550, "5.1.1 <reader1@example.org>: User unknown");
    const first = await newsletter(setup.env(), ["send", FIRST]);
    expect(first.code, first.stderr).toBe(0);
    // The outbox as a version from before per-mail refusals left it: no such column, no refusal on any row.
    const outbox = new DatabaseSync(path.join(setup.dataDir, OUTBOX_FILE_NAME));
    outbox.exec("alter table update_sends drop column refusals_kept");
    outbox.exec("update mail_outbox set payload = json_remove(payload, '$.refusal')");
    outbox.close();
    const unknown =
      /^[^\t]+\tsent to 3 of 4, 1 failed, finished [^,]+, 3 handed to the relay, bounced and complained not recorded \(sent by an older version\)$/;
    expect(await firstLine()).toMatch(unknown);
    // Sent again (nothing left to send), it still does not know who bounced before.
    const again = await newsletter(setup.env(), ["send", FIRST]);
    expect(again.code, again.stderr).toBe(0);
    expect(await firstLine()).toMatch(unknown);
  }, 180_000);
});
