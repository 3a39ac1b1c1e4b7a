/**
 * Confirmation mails while the relay refuses the sending itself, through the production server over HTTP with a real
 * SMTP server on loopback answering every reader `554 5.7.1 Relay access denied`: the sign-ups stay pending, nobody
 * is suppressed, the mails stay queued, `npm run newsletter -- status` says what the relay said, and once the relay is
 * mended every reader gets their one mail. Needs `npm run build`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subscribe } from "../../support/newsletter/http";
import { newsletter, perRecipient } from "../../support/newsletter/cli";
import { childEnv, productionEnv, serverHarness } from "../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";
import { subscribers } from "../../support/subscribers-cli";

const harness = serverHarness("relay-verdicts-http-");
const FROM = "Alex Placeholder <updates@example.com>";
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

describe("confirmations while the relay refuses the sending", () => {
  it("stay queued with their sign-ups pending, nobody suppressed, and each goes once the relay is mended", async () => {
    const dataDir = harness.scratchDir();
    const env = { SMTP_URL: relay.url(), MAIL_FROM: FROM, DATA_DIR: dataDir };
    relay.refuseEveryone(554, "5.7.1 Relay access denied");
    const server = await harness.start(env);
    const readers = ["ada@example.org", "grace@example.org", "edsger@example.org"];
    for (const email of readers) {
      expect(await subscribe(server.url, email)).toMatchObject({ message: "Successfully subscribed!" });
    }
    await server.waitForOutput("stopped the sending", 30_000);
    await server.waitForOutput("Mail: the confirm mails wait 10 s: 554 5.7.1 Relay access denied", 30_000);
    expect(server.output()).toMatch(/554 5\.7\.1 Relay access denied: the relay does not accept mail from this server/);

    const count = await subscribers(dataDir, ["count"]);
    expect(count.stderr).toMatch(/^0 confirmed, 3 pending$/m);
    expect(count.stderr).not.toContain("suppressed");
    expect(count.stderr).toContain("confirmation mails: 3 waiting, 0 sent");
    const status = await newsletter(
      childEnv(productionEnv({ DATA_DIR: dataDir, SMTP_URL: relay.url(), MAIL_FROM: FROM })),
      ["status"],
    );
    expect(status.stdout).toMatch(
      /^Confirmation mails: 3 waiting for the relay, which said: 554 5\.7\.1 Relay access denied: /m,
    );

    relay.refuseEveryone(null);
    // A new sign-up wakes the runner at once, rather than after its pause.
    expect(await subscribe(server.url, "barbara@example.org")).toMatchObject({ message: "Successfully subscribed!" });
    await relay.waitForMails(4, 60_000);
    const received = perRecipient(relay.mails);
    expect([...received.keys()].sort()).toEqual([...readers, "barbara@example.org"].sort());
    expect([...received.values()]).toEqual([1, 1, 1, 1]);
    expect((await subscribers(dataDir, ["count"])).stderr).toMatch(/^0 confirmed, 4 pending$/m);
  }, 120_000);
});
