/**
 * The ledger's promises where features meet, with the embedded store, as the owner meets them: the owner's commands
 * (`npm run subscribers`, `npm run newsletter`) as processes on the production build, a real SMTP relay on loopback,
 * Mailchimp's own export layout (tests/fixtures/import/), and the reader's one-click unsubscribe through the list's
 * own door (what the unsubscribe route calls).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { openSqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { importFixture } from "../../../support/import-fixture";
import { addReaders, newsletter, writeUpdate } from "../../../support/newsletter/cli";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { subscribers } from "../../../support/subscribers-cli";

const FIRST = "2026-11-20-first";
const setup = sendSetupPerTest("ledger-done-", { name: FIRST, front: { title: "First", summary: "One" } });

const withList = async <T>(work: (list: ReturnType<typeof openSqliteList>) => Promise<T>) => {
  const list = openSqliteList(setup.dataDir);
  try {
    return await work(list);
  } finally {
    list.close();
  }
};

/** Sends an update and answers who got it, each address once per mail. */
async function send(name: string, title: string) {
  writeUpdate(setup.updatesDir, name, { title, summary: title });
  const before = setup.relay.mails.length;
  const run = await newsletter(setup.env(), ["send", name]);
  expect(run.code, run.stderr).toBe(0);
  return setup.relay.mails.slice(before).map((mail) => mail.envelopeTo[0]!);
}

const statusOf = async (name: string) => {
  const run = await newsletter(setup.env(), ["status"]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split("\n").find((line) => line.startsWith(`${name}\t`));
};

describe("one ledger, embedded store", () => {
  it("an export imported again after a one-click unsubscribe, an older backup restored, a removal and a return", async () => {
    const subscribed = importFixture("mailchimp-subscribed.csv");
    expect((await subscribers(setup.dataDir, ["import", subscribed])).code).toBe(0);
    await addReaders(setup.dataDir, ["ada@example.com", "grace@example.org"]);
    const first = await send(FIRST, "First");
    expect(first.sort()).toEqual(["ada@example.com", "grace@example.org", "ivan@example.com", "joan@example.net"]);
    const line = await statusOf(FIRST);
    expect(line).toMatch(/\tsent to 4 of 4, finished /);

    const backup = path.join(setup.dataDir, "backups", "before.sqlite");
    expect((await subscribers(setup.dataDir, ["backup", backup])).code).toBe(0);

    // Ivan presses the one-click link in his mail; then the owner imports the same export again.
    await withList(async (list) => {
      const ivan = (await list.readers()).find((reader) => reader.email === "ivan@example.com")!;
      expect(await list.unsubscribe(ivan.token)).toBe("removed");
    });
    const shown = await subscribers(setup.dataDir, ["show", "ivan@example.com"]);
    expect(shown.stderr).toMatch(/^ivan@example\.com is not on the list; its mailbox left it \(unsubscribed at \d{4}-/);
    const again = await subscribers(setup.dataDir, ["import", subscribed]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("0 readers added as confirmed.");

    // The owner removes Grace by mistake: the finished send's record does not change.
    expect((await subscribers(setup.dataDir, ["remove", "grace@example.org"])).code).toBe(0);
    expect(await statusOf(FIRST)).toBe(line);

    // The backup (made before Ivan left, holding imported readers) is fine, and restores.
    const listing = await subscribers(setup.dataDir, ["backups"]);
    expect(listing.stdout).toMatch(/before\.sqlite\t.*\t4 subscribers$/m);
    const restore = await subscribers(setup.dataDir, ["restore", backup]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stderr).toContain("Put back 1 address from");
    expect(restore.stderr).toContain(": grace@example.org");
    expect(restore.stderr).toContain("Left out 1 reader who left the list");
    expect(await statusOf(FIRST)).toBe(line);

    const second = await send("2026-11-27-second", "Second");
    expect(second.sort()).toEqual(["ada@example.com", "grace@example.org", "joan@example.net"]);

    // Ivan signs up again on the site and confirms by mail: the next update reaches him, once.
    await withList(async (list) => {
      const now = Date.now();
      expect(await list.signUp("ivan@example.com", { state: "pending", consent: dialogConsent("/"), now })).toEqual({
        outcome: "subscribed",
        mail: true,
      });
      await list.issueConfirmToken("ivan@example.com", hashToken("ivan-again"), now);
      expect(await list.confirm("ivan-again", now)).toBe("confirmed");
    });
    const third = await send("2026-11-28-third", "Third");
    expect(third.filter((to) => to === "ivan@example.com")).toHaveLength(1);
    expect(third.sort()).toEqual(["ada@example.com", "grace@example.org", "ivan@example.com", "joan@example.net"]);
    expect(await statusOf(FIRST)).toBe(line);
  }, 240_000);
});
