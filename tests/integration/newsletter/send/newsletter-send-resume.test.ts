/**
 * Exactly once through the worst: the sender killed (-9) at about 40 % of 300 readers and run again, a relay that
 * throttles a third of the recipients (4xx) then accepts them, a relay that is down when the send starts.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { concurrencyFor } from "~/newsletter/send/send-command.server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import {
  addReaders,
  exited,
  newsletter,
  outboxRows,
  perRecipient,
  startNewsletter,
} from "../../../support/newsletter/cli";
import { until } from "../../../support/until";
import { OUTBOX_FILE_NAME } from "~/mail/settings.server";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("newsletter-resume-", { name: NAME, front: { title: "First launch" } });

const readers = (count: number) => Array.from({ length: count }, (_, n) => `reader${n}@example.org`);

describe("sending an update exactly once", () => {
  it("after kill -9 at about 40 %, a re-run sends to every reader not yet sent and nobody twice", async () => {
    const emails = readers(300);
    await addReaders(setup.dataDir, emails);
    // 100 mails a second: concurrencyFor(100) relay connections, the most mails in flight when the sender dies.
    const env = setup.env({ MAIL_RATE_PER_SECOND: "100" });
    const first = startNewsletter(env, ["send", NAME]);
    await until(() => setup.relay.mails.length >= 120, 30_000);
    first.kill("SIGKILL");
    await exited(first);
    const atKill = setup.relay.mails.length;
    expect(atKill).toBeLessThan(300);

    const rerun = await newsletter(env, ["send", NAME]);
    expect(rerun.code, rerun.stderr).toBe(0);
    const rows = outboxRows(setup.dataDir, NAME);
    const uncertain = rows.filter((row) => row.state === "uncertain").map((row) => row.recipient);
    expect(uncertain.length).toBeLessThanOrEqual(concurrencyFor(100));
    expect(rows.filter((row) => row.state === "sent")).toHaveLength(300 - uncertain.length);
    const received = perRecipient(setup.relay.mails);
    for (const email of emails) {
      const count = received.get(email) ?? 0;
      // One mail each; a reader whose mail was in flight at the kill has one or none, and is named uncertain.
      if (uncertain.includes(email)) expect(count).toBeLessThanOrEqual(1);
      else expect(count, email).toBe(1);
    }
    expect(rerun.stderr).toContain(`of 300 sent, 0 skipped (unsubscribed), 0 failed, ${uncertain.length} uncertain.`);
    for (const email of uncertain) expect(rerun.stderr).toContain(`  uncertain: ${email}`);

    // Only the owner's word sends them again.
    const again = await newsletter(env, ["send", NAME]);
    expect(again.code).toBe(0);
    expect(setup.relay.mails.length).toBe([...received.values()].reduce((a, b) => a + b, 0));
    const resent = await newsletter(env, ["send", NAME, "--resend-uncertain"]);
    expect(resent.stderr).toContain(`${uncertain.length} uncertain mails queued again.`);
    expect(resent.stderr).toContain("300 of 300 sent");
    for (const email of emails) expect(perRecipient(setup.relay.mails).get(email) ?? 0).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it("takes 4xx throttling for a third of the readers as 'later': all delivered once, none failed", async () => {
    const emails = readers(300);
    await addReaders(setup.dataDir, emails);
    // Every third reader, not the first hundred: a relay that says "not now" to every reader it is asked for first is
    // the relay's own trouble, and the send pauses (relay-verdicts.test.ts).
    for (let n = 1; n < 300; n += 3) setup.relay.throttleAddress(emails[n]!, 1, 454);
    // Each "not now" goes again a second later, not the real 10 s: still within the command's stay for near retries.
    const run = await newsletter(setup.env({ MAIL_FIRST_RETRY_SECONDS: "1" }), ["send", NAME]);
    expect(run.code, run.stderr).toBe(0);
    expect(setup.relay.refusals.filter((refusal) => refusal.code === 454)).toHaveLength(100);
    expect(run.stderr).toContain("300 of 300 sent, 0 skipped (unsubscribed), 0 failed, 0 uncertain.");
    const received = perRecipient(setup.relay.mails);
    expect(received.size).toBe(300);
    expect([...received.values()].every((count) => count === 1)).toBe(true);
    expect(outboxRows(setup.dataDir, NAME).filter((row) => row.attempts > 1)).toHaveLength(100);
  }, 90_000);

  it("waits for a relay that is down when the send starts, then delivers each mail once", async () => {
    await addReaders(setup.dataDir, readers(10));
    await setup.relay.down();
    // The relay is tried again a second later, then twice as long each time, not after the real 10 s.
    const sender = startNewsletter(setup.env({ MAIL_FIRST_RETRY_SECONDS: "1" }), ["send", NAME]);
    // Every reader queued again with the relay's error named, none failed: the wait is for that state, however slow
    // the machine is to start the command.
    const heldWithError = () => {
      // The command makes the outbox; the test only reads one that exists.
      if (!existsSync(path.join(setup.dataDir, OUTBOX_FILE_NAME))) return false;
      const rows = outboxRows(setup.dataDir, NAME);
      return rows.length === 10 && rows.every((row) => row.state === "queued" && row.lastError);
    };
    await until(heldWithError, 30_000, "every reader queued with the relay's error");
    await setup.relay.up();
    expect(await exited(sender)).toBe(0);
    expect(sender.output()).toContain("10 of 10 sent, 0 skipped (unsubscribed), 0 failed, 0 uncertain.");
    expect([...perRecipient(setup.relay.mails).values()]).toEqual(Array(10).fill(1));
  }, 60_000);
});
