/**
 * A refused address is never mailed again, as the owner sees it: `npm run newsletter -- send` on the production build
 * against a loopback relay that answers 550 for one reader. The others get the update; the refused reader is
 * suppressed with the relay's words, and the next update opens no RCPT TO for them.
 */
import { describe, expect, it } from "vitest";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { subscribers } from "../../../support/subscribers-cli";
import { addReaders, newsletter, writeUpdate } from "../../../support/newsletter/cli";

const FIRST = "2026-11-20-first-launch";
const SECOND = "2026-11-27-second-note";
const setup = sendSetupPerTest("suppression-send-", {
  name: FIRST,
  front: { title: "First launch", summary: "It is out" },
  body: "It is **out**.",
});
const readers = ["reader0@example.org", "reader1@example.org", "reader2@example.org"];
const words = "5.1.1 <reader1@example.org>: Recipient address rejected: User unknown";

describe("a reader the relay refuses with 550", () => {
  it("is suppressed as bounced with the relay's words, and the next send opens no RCPT for them", async () => {
    await addReaders(setup.dataDir, readers);
    setup.relay.reject("reader1@example.org", 550, words);
    const first = await newsletter(setup.env(), ["send", FIRST]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("2 of 3 sent, 0 skipped (unsubscribed), 1 failed, 0 uncertain.");
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "reader0@example.org",
      "reader2@example.org",
    ]);
    expect(setup.relay.refusals).toEqual([{ address: "reader1@example.org", code: 550 }]);

    const shown = await subscribers(setup.dataDir, ["show", "reader1@example.org"]);
    expect(shown.stdout).toMatch(new RegExp(`^suppressed: bounced at \\d{4}-\\d\\d-\\d\\dT[^ ]+Z: 550 ${words}$`, "m"));

    const count = await subscribers(setup.dataDir, ["count"]);
    expect(count.stderr).toContain("3 confirmed, 0 pending, 1 suppressed (bounced or complained: no mail)");
    // The 550 left a tombstone: that mailbox stays unmailed whatever spelling signs it up again unconfirmed.
    expect(count.stderr).toContain("1 mailbox left the list (kept as a keyed hash");
    const listed = await subscribers(setup.dataDir, ["list"]);
    expect(listed.stdout).toMatch(/^reader1@example\.org\t.*\tsuppressed: bounced \d{4}-/m);
    expect(listed.stdout).not.toMatch(/^reader0@example\.org\t.*suppressed/m);
    const exported = await subscribers(setup.dataDir, ["export", "--csv"]);
    expect(exported.stdout).toMatch(
      /^reader1@example\.org,.*,bounced,\d{4}-[^,]+,550 5\.1\.1 <reader1@example\.org>: Recipient address rejected: User unknown\r$/m,
    );
    writeUpdate(setup.updatesDir, SECOND, { title: "Second note", summary: "More" }, "More **news**.");
    const second = await newsletter(setup.env(), ["send", SECOND]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("2 of 2 sent");
    // No second refusal: the relay was never asked for reader1 again.
    expect(setup.relay.refusals).toHaveLength(1);
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(
      new RegExp(
        `^${FIRST}\tsent to 2 of 3, 1 failed, finished [^,]+, 2 handed to the relay, 1 bounced, 0 complained$`,
        "m",
      ),
    );
    expect(status.stdout).toMatch(new RegExp(`^${SECOND}\t.*, 2 handed to the relay, 0 bounced, 0 complained$`, "m"));
    const secondMails = setup.relay.mails.filter((mail) => mail.parsed.subject === "Second note");
    expect(secondMails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "reader0@example.org",
      "reader2@example.org",
    ]);
  }, 60_000); // three runs of the command, each a Node start with the server build: seconds apiece on a busy machine
});
