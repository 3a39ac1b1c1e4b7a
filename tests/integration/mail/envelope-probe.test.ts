/**
 * `send` asks the relay before it starts: an envelope probe (greeting, EHLO, the login, MAIL FROM, RSET, QUIT; no
 * recipient, no message) against a real SMTP server on loopback, then the command itself refusing before any reader is
 * queued when the relay refuses our sender. Needs `npm run build` (the command's part).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeEnvelope } from "~/mail/envelope-probe.server";
import { addReaders, newsletter, outboxRows } from "../../support/newsletter/cli";
import { sendSetupPerTest } from "../../support/newsletter/send-setup";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";

describe("the envelope probe", () => {
  let relay: TestSmtpServer;
  beforeEach(async () => {
    relay = await startSmtpServer();
  });
  afterEach(async () => {
    await relay.close();
  });

  it("is accepted by a relay that takes the sender, logged in or not, and sends no mail", async () => {
    expect(await probeEnvelope(relay.url(), "updates@example.net")).toEqual({ kind: "accepted" });
    expect(await probeEnvelope(relay.url("owner", "p@ss word"), "updates@example.net")).toEqual({ kind: "accepted" });
    expect(relay.mails).toHaveLength(0);
    expect(relay.refusals).toHaveLength(0);
  });

  it("is refused, with the relay's words, by a refused sender, login or greeting", async () => {
    relay.refuseSender(true);
    expect(await probeEnvelope(relay.url(), "updates@example.net")).toEqual({
      kind: "refused",
      reason: "553 5.7.1 Sender address rejected: not owned by user",
    });
    relay.refuseSender(false);
    relay.refuseAuth(true);
    expect(await probeEnvelope(relay.url("owner", "wrong"), "updates@example.net")).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("535 5.7.8 Authentication credentials invalid"),
    });
    relay.refuseAuth(false);
    relay.refuseGreeting(554, "5.7.1 Your address is not allowed here");
    expect(await probeEnvelope(relay.url(), "updates@example.net")).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("554 5.7.1 Your address is not allowed here"),
    });
  });

  it("says 'unknown' when there is no answer to judge: a busy greeting, a relay that is down or silent", async () => {
    relay.refuseGreeting(421);
    expect((await probeEnvelope(relay.url(), "updates@example.net")).kind).toBe("unknown");
    relay.refuseGreeting(null);
    await relay.down();
    expect((await probeEnvelope(relay.url(), "updates@example.net")).kind).toBe("unknown");
    await relay.stall(true);
    const started = Date.now();
    expect(await probeEnvelope(relay.url(), "updates@example.net", 1_000)).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("no answer within 1 s"),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("envelope-probe-", { name: NAME, front: { title: "First launch" } });

describe("send, before it starts", () => {
  it("refuses when the relay refuses the sender, before any reader is queued or asked for", async () => {
    await addReaders(setup.dataDir, ["ada@example.org", "grace@example.org"]);
    setup.relay.refuseSender(true);
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "The relay refuses the sending before any mail (asked with MAIL FROM, nothing sent): 553 5.7.1 Sender address " +
        "rejected: not owned by user",
    );
    expect(outboxRows(setup.dataDir, NAME)).toEqual([]);
    expect(setup.relay.refusals).toEqual([]);

    setup.relay.refuseSender(false);
    const mended = await newsletter(setup.env(), ["send", NAME]);
    expect(mended.code, mended.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "ada@example.org",
      "grace@example.org",
    ]);
  }, 60_000);
});
