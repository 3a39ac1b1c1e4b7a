/**
 * A person who left and signs up again, through the production server without JavaScript and a real SMTP relay on
 * loopback: imported as having left, suppressed by a relay, or complained at the spelling of a Gmail inbox, their new
 * sign-up is a new one (a confirmation mail, "Successfully subscribed!", never "Already subscribed" with nothing
 * after); the button in that mail makes them a reader again. Mailchimp's own unsubscribed export layout
 * (tests/fixtures/import/).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { importFixture } from "../../../support/import-fixture";
import { subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { subscribers } from "../../../support/subscribers-cli";
import { withoutMail } from "../../../support/newsletter/without-mail";

const harness = serverHarness("ledger-http-");
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

const tokenIn = (text: string) => /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1] ?? null;

async function pressConfirm(baseUrl: string, text: string) {
  const token = tokenIn(text);
  expect(token).not.toBeNull();
  const response = await fetch(`${baseUrl}/confirm?token=${token}`, {
    method: "POST",
    body: new URLSearchParams({ token: token! }),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  expect(response.status).toBe(200);
}

const readersOf = async (dataDir: string) => {
  const list = openSqliteList(dataDir);
  try {
    return (await list.readers()).map((reader) => reader.email);
  } finally {
    list.close();
  }
};

describe("signing up again after leaving", () => {
  it("is a new sign-up whatever made them leave, and the confirmation makes them a reader", async () => {
    const dataDir = harness.scratchDir();
    // Karen left at Mailchimp (its unsubscribed export); a relay refused ada; someone@gmail.com pressed "spam".
    expect((await subscribers(dataDir, ["import", importFixture("mailchimp-unsubscribed.csv"), "--yes"])).code).toBe(0);
    const list = openSqliteList(dataDir);
    try {
      await list.signUp("ada@example.org", withoutMail());
      await list.signUp("someone@gmail.com", withoutMail());
      await list.suppress("ada@example.org", "bounced", "550 5.1.1 no such user", new Date());
      await list.suppress("someone@gmail.com", "complained", "abuse report", new Date());
    } finally {
      list.close();
    }
    const server = await harness.start({
      SMTP_URL: relay.url(),
      MAIL_FROM: "Alex <updates@example.com>",
      DATA_DIR: dataDir,
    });
    const again = ["karen@example.com", "ada@example.org", "some.one+news@googlemail.com"];
    for (const [n, email] of again.entries()) {
      expect(await subscribe(server.url, email)).toMatchObject({ message: "Successfully subscribed!" });
      const mails = await relay.waitForMails(n + 1, 20_000);
      expect(mails[n]!.envelopeTo).toEqual([email]);
    }
    expect(await readersOf(dataDir)).toEqual([]);
    for (const mail of relay.mails) await pressConfirm(server.url, mail.parsed.text ?? "");
    expect((await readersOf(dataDir)).sort()).toEqual([...again].sort());
  }, 120_000);
});
