/**
 * The owner's view of a relay that cut the connection after the final dot: the summary and `status` name the
 * reader uncertain, a second run sends nothing, `--resend-uncertain` sends it again.
 */
import { describe, expect, it } from "vitest";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { addReaders, newsletter, outboxRows, perRecipient } from "../../../support/newsletter/cli";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("newsletter-uncertain-", { name: NAME, front: { title: "First launch" } });
const readers = ["reader0@example.org", "reader1@example.org", "reader2@example.org", "reader3@example.org"];

describe("a connection cut after the final dot", () => {
  it("leaves that reader uncertain with exactly one copy, named in the summary and status", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.cutAfterData("reader2@example.org");
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Update ${NAME}: 3 of 4 sent, 0 skipped (unsubscribed), 0 failed, 1 uncertain.`);
    expect(run.stderr).toContain("  uncertain: reader2@example.org");
    expect(perRecipient(setup.relay.mails).get("reader2@example.org")).toBe(1);
    const row = outboxRows(setup.dataDir, NAME).find((found) => found.recipient === "reader2@example.org");
    expect(row?.state).toBe("uncertain");

    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsent to 3 of 4, 1 uncertain, finished `, "m"));

    const again = await newsletter(setup.env(), ["send", NAME]);
    expect(again.code).toBe(0);
    expect(perRecipient(setup.relay.mails).get("reader2@example.org")).toBe(1);

    const resend = await newsletter(setup.env(), ["send", NAME, "--resend-uncertain"]);
    expect(resend.code, resend.stderr).toBe(0);
    expect(perRecipient(setup.relay.mails).get("reader2@example.org")).toBe(2);
    expect(setup.relay.mails).toHaveLength(5);
  });
});
