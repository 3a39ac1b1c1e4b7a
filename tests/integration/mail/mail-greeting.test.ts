/**
 * A relay that turns connections away at its greeting (421: too busy, try later): the send waits, and every place the
 * owner looks says why, in the relay's own words: the progress line, the summary when the command ends, and
 * `status`. No reader is blamed for it: the greeting is the relay's, so no reader is given up on or soft-bounced.
 */
import { describe, expect, it } from "vitest";
import { sendSetupPerTest } from "../../support/newsletter/send-setup";
import { addReaders, exited, newsletter, outboxRows, startNewsletter } from "../../support/newsletter/cli";
import { until } from "../../support/until";

const FIRST = "2026-11-20-first-launch";
const setup = sendSetupPerTest("mail-greeting-", { name: FIRST, front: { title: "First launch" } });
const readers = ["reader0@example.org", "reader1@example.org", "reader2@example.org"];
const GREETING =
  /the relay turned the connection away at its greeting: 421 4\.3\.2 Too many connections, try again later/;

describe("421 at the greeting", () => {
  it("shows the relay's words in the progress line, the summary and status, and sends once the relay lets us in", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.refuseGreeting(421);
    const sender = startNewsletter(setup.env(), ["send", FIRST]);
    const started = Date.now();
    await until(
      () => new RegExp(`waiting on the relay \\(3 readers\\): ${GREETING.source}`).test(sender.output()),
      15_000,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    sender.kill("SIGINT");
    await exited(sender);
    expect(sender.output()).toMatch(new RegExp(`waiting on the relay \\(3 readers\\): ${GREETING.source}`));

    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(
      new RegExp(
        `^${FIRST}\tsent to 0 of 3, 3 waiting in the outbox.*waiting on the relay \\(3 readers\\): ${GREETING.source}`,
        "m",
      ),
    );
    // The readers are not at fault: no row failed, and the relay saw no mail.
    expect(outboxRows(setup.dataDir, FIRST).map((row) => row.state)).toEqual(["queued", "queued", "queued"]);
    expect(setup.relay.mails).toHaveLength(0);

    setup.relay.refuseGreeting(null);
    const run = await newsletter(setup.env(), ["send", FIRST]);
    expect(run.code, run.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual(readers);
  }, 90_000);
});
