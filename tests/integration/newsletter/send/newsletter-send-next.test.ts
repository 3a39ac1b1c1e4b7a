/**
 * One reader's full mailbox never blocks the next update: the relay answers 452 to that reader for ever;
 * the first send reaches everyone else and gives the lock back, the next update's send starts at once and reaches every
 * other reader, both commands end, and no lock is left behind.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openOutbox } from "~/mail/outbox.server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { addReaders, exited, newsletter, startNewsletter, writeUpdate } from "../../../support/newsletter/cli";
import { until } from "../../../support/until";

const FIRST = "2026-11-20-first-launch";
const NEXT = "2026-11-21-second";
const setup = sendSetupPerTest("newsletter-next-", { name: FIRST, front: { title: "First launch" } });
const readers = ["reader0@example.org", "reader1@example.org", "full@example.org", "reader3@example.org"];
// The full mailbox's retry a second later and the command staying for a retry due within 2 s, not the real 10 s and
// 15 s: the command still stays for a near retry and leaves the later ones, in seconds instead of half a minute.
const quickRetries = { MAIL_FIRST_RETRY_SECONDS: "1", MAIL_RETRY_HOLD_SECONDS: "2" };
const received = (subject: string) =>
  setup.relay.mails.filter((mail) => mail.parsed.subject === subject).map((mail) => mail.envelopeTo[0]);

describe("a reader whose mailbox is full", () => {
  it("never keeps the next update from going out to everyone else", async () => {
    await addReaders(setup.dataDir, readers);
    writeUpdate(setup.updatesDir, NEXT, { title: "Second" });
    setup.relay.throttleAddress("full@example.org", 1_000, 452);
    const first = startNewsletter(setup.env(quickRetries), ["send", FIRST]);
    await until(() => received("First launch").length === 3, 30_000);

    const started = Date.now();
    const next = await newsletter(setup.env(quickRetries), ["send", NEXT]);
    expect(next.code, next.stderr).toBe(0);
    expect(received("Second").sort()).toEqual(["reader0@example.org", "reader1@example.org", "reader3@example.org"]);
    expect(Date.now() - started).toBeLessThan(45_000);

    expect(await exited(first)).toBe(0);
    expect(first.output()).toContain("3 of 4 sent");
    expect(first.output()).toContain("1 not sent yet");
    const outbox = openOutbox(path.join(setup.dataDir, "mail-outbox.sqlite"));
    try {
      expect(outbox.sends.liveHolder()).toBeNull();
    } finally {
      outbox.close();
    }
    expect(setup.relay.mails.filter((mail) => mail.envelopeTo[0] === "full@example.org")).toHaveLength(0);
  }, 120_000);
});

describe("every wait names its cause", () => {
  it("a relay that cannot be reached: the progress line gives the connection error", async () => {
    await addReaders(setup.dataDir, readers);
    await setup.relay.down();
    const sender = startNewsletter(setup.env(), ["send", FIRST]);
    // How soon the line comes is the reporter's cadence (send-progress.test.ts), not this machine's speed.
    await until(() => /waiting on the relay \(4 readers\): .*ECONNREFUSED/.test(sender.output()), 60_000);
    sender.kill("SIGINT");
    await exited(sender);
  }, 60_000);

  it("smtps:// against a plain port: the send refuses before it starts, saying the TLS handshake failed", async () => {
    await addReaders(setup.dataDir, readers);
    const url = setup.relay.url().replace(/^smtp:/, "smtps:");
    const started = Date.now();
    const run = await newsletter(setup.env({ SMTP_URL: url }), ["send", FIRST]);
    expect(run.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.stderr).toContain(
      "before any mail (asked with MAIL FROM, nothing sent): the TLS handshake with the relay failed (",
    );
    expect(run.stderr).toContain("check SMTP_URL");
    expect(setup.relay.mails).toHaveLength(0);
  }, 60_000);

  it("a reader's 452: the summary and status give the relay's words and the next try", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.throttleAddress("full@example.org", 1_000, 452);
    // The retry five minutes off and the command staying for none: it leaves after the first 452, and that retry is
    // still ahead when `status` asks, however slow the machine is to start it. The relay took the other readers' mails
    // after that 452; the full mailbox's wait is still named.
    const run = await newsletter(setup.env({ MAIL_FIRST_RETRY_SECONDS: "300", MAIL_RETRY_HOLD_SECONDS: "0" }), [
      "send",
      FIRST,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /Still waiting on the relay \(1 reader\): 452 4\.7\.1 Throttling: try again later \(full@example\.org\), next try in /,
    );
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(
      new RegExp(
        `^${FIRST}\tsent to 3 of 4, 1 waiting in the outbox, waiting on the relay \\(1 reader\\): 452 4\\.7\\.1 ` +
          "Throttling: try again later \\(full@example\\.org\\), next try \\d{4}-",
        "m",
      ),
    );
  }, 60_000);
});
