/**
 * A refusal about the relay is never a reader's: `npm run newsletter -- send` on the production build against a
 * loopback relay that refuses the sending itself (a relay that will not relay for us, Amazon SES's sandbox after the
 * message, a relay answering 451 4.3.0 to everyone for three days). Each time nobody is suppressed, the command exits
 * non-zero with the relay's words and what to fix, `status` says the same, and once the relay is mended the next run
 * reaches every reader exactly once. The three days pass on a moved clock (tests/support/moved-clock.mjs), not in
 * real time. Needs `npm run build`.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sendSetupPerTest } from "../../support/newsletter/send-setup";
import { subscribers } from "../../support/subscribers-cli";
import { addReaders, newsletter, outboxRows, perRecipient } from "../../support/newsletter/cli";
import { ROOT } from "../../support/production-server";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("relay-verdicts-", { name: NAME, front: { title: "First launch", summary: "Out" } });
const readers = Array.from({ length: 8 }, (_, n) => `reader${n}@example.org`);

/** The command's environment with its clock at `at` (an ISO time). */
const at = (instant: string) =>
  setup.env({
    NODE_OPTIONS: `--import=${path.join(ROOT, "tests/support/moved-clock.mjs")}`,
    MOVED_CLOCK: instant,
  });

async function expectNobodySuppressed() {
  const count = await subscribers(setup.dataDir, ["count"]);
  // The count names suppressed readers only when there are some.
  expect(count.stderr).toMatch(new RegExp(`^${readers.length} confirmed, 0 pending$`, "m"));
  expect(count.stderr).not.toContain("suppressed");
}

async function expectEveryoneOnceAfterMending(env: NodeJS.ProcessEnv) {
  const mended = await newsletter(env, ["send", NAME]);
  expect(mended.code, mended.stderr).toBe(0);
  expect(mended.stderr).toContain(`${readers.length} of ${readers.length} sent`);
  const received = perRecipient(setup.relay.mails);
  expect([...received.keys()].sort()).toEqual([...readers].sort());
  expect([...received.values()].every((count) => count === 1)).toBe(true);
  await expectNobodySuppressed();
}

describe("a refusal about the relay", () => {
  it("'554 5.7.1 Relay access denied' for every reader: nobody suppressed, the command says so and fails", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.refuseEveryone(554, "5.7.1 Relay access denied");
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("The send stopped: 554 5.7.1 Relay access denied");
    expect(run.stderr).toMatch(/SMTP_URL the relay's user and password/);
    expect(run.stderr).toContain("run the same command again to go on");
    // Stopped at the first refusal: the rest were never asked for.
    expect(setup.relay.refusals).toHaveLength(1);
    expect(outboxRows(setup.dataDir, NAME).every((row) => row.state === "queued")).toBe(true);
    await expectNobodySuppressed();
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(
      new RegExp(
        `^${NAME}\\tsent to 0 of 8, 8 waiting in the outbox, .*stopped by the relay: 554 5\\.7\\.1 Relay access denied`,
        "m",
      ),
    );

    setup.relay.refuseEveryone(null);
    await expectEveryoneOnceAfterMending(setup.env());
    const after = await newsletter(setup.env(), ["status"]);
    expect(after.stdout).not.toContain("stopped by the relay");
  }, 60_000);

  it("Amazon SES's sandbox after the message: nobody suppressed, the owner told to leave the sandbox", async () => {
    await addReaders(setup.dataDir, readers);
    const words =
      "Message rejected: Email address is not verified. The following identities failed the check in region " +
      "EU-WEST-1: reader0@example.org";
    setup.relay.refuseData(554, words);
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`The send stopped: 554 ${words}`);
    expect(run.stderr).toMatch(/sandbox.*production access/);
    expect(setup.relay.mails).toHaveLength(0);
    await expectNobodySuppressed();

    setup.relay.refuseData(null);
    await expectEveryoneOnceAfterMending(setup.env());
  }, 60_000);

  it("'451 4.3.0' for every reader for 72 hours: nobody given up or suppressed, then everyone once", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.refuseEveryone(451, "4.3.0 Mail server temporarily rejected message.");
    for (const instant of ["2026-12-01T09:00:00Z", "2026-12-02T09:00:00Z", "2026-12-04T10:00:00Z"]) {
      const run = await newsletter(at(instant), ["send", NAME]);
      expect(run.code, run.stderr).not.toBe(0);
      expect(run.stderr).toContain("451 4.3.0 Mail server temporarily rejected message.");
      expect(run.stderr).toMatch(/the relay answered 3 readers in a row the same way.*nobody was suppressed/);
      // The send paused after its first three readers; never a fourth on a relay that takes nobody.
      expect(new Set(setup.relay.refusals.map((refusal) => refusal.address)).size).toBeLessThanOrEqual(8);
    }
    expect(outboxRows(setup.dataDir, NAME).some((row) => row.state === "failed")).toBe(false);
    await expectNobodySuppressed();

    setup.relay.refuseEveryone(null);
    await expectEveryoneOnceAfterMending(at("2026-12-04T11:00:00Z"));
  }, 90_000);

  it("a 451 with no enhanced code for everyone, past 72 hours: given up on nobody, suppressed nobody", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.refuseEveryone(451, "Requested action aborted: try again later");
    for (const instant of ["2026-12-01T09:00:00Z", "2026-12-04T10:00:00Z"]) {
      const run = await newsletter(at(instant), ["send", NAME]);
      expect(run.code, run.stderr).not.toBe(0);
      expect(run.stderr).toContain("451 Requested action aborted: try again later");
    }
    // Past 72 hours the same answer would give the first readers up: the breaker held them, and put them back.
    expect(outboxRows(setup.dataDir, NAME).map((row) => row.state)).toEqual(readers.map(() => "queued"));
    await expectNobodySuppressed();
    setup.relay.refuseEveryone(null);
    await expectEveryoneOnceAfterMending(at("2026-12-04T11:00:00Z"));
  }, 90_000);
});
