/**
 * `npm run subscribers -- import` as the owner runs it (the script on the production build, a real list file): a
 * Mailchimp and a Substack export bring in exactly their active, valid, new addresses, a reader already on the list
 * keeps their own record, a dry run writes nothing, a second import adds nothing, and the next update reaches them.
 */
import { describe, expect, it } from "vitest";
import { importFixture } from "../../../../support/import-fixture";
import { sendSetupPerTest } from "../../../../support/newsletter/send-setup";
import { addReaders, newsletter } from "../../../../support/newsletter/cli";
import { subscribers } from "../../../../support/subscribers-cli";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("import-cli-", { name: NAME, front: { title: "First", summary: "Out" }, body: "Hi." });

const listed = async () =>
  (await subscribers(setup.dataDir, ["list"])).stdout
    .trim()
    .split("\n")
    .map((line) => line.split("\t"));

describe("npm run subscribers -- import", () => {
  it("brings in the active, valid, new addresses of a Mailchimp and a Substack export; the next update reaches them", async () => {
    await addReaders(setup.dataDir, ["ivan@example.com"]);
    const before = await subscribers(setup.dataDir, ["show", "ivan@example.com"]);

    const dry = await subscribers(setup.dataDir, ["import", importFixture("substack.csv"), "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect((await listed()).map(([email]) => email)).toEqual(["ivan@example.com"]);

    for (const file of ["mailchimp-subscribed.csv", "mailchimp-unsubscribed.csv", "substack.csv"]) {
      // Mailchimp's unsubscribed export is all readers who left: it is written only with --yes.
      const yes = file === "mailchimp-unsubscribed.csv" ? ["--yes"] : [];
      const run = await subscribers(setup.dataDir, ["import", importFixture(file), ...yes]);
      expect(run.code, run.stderr).toBe(0);
    }
    const rows = await listed();
    const active = rows.filter((row) => !row[4]).map(([email]) => email);
    const suppressed = rows.filter((row) => row[4]).map(([email]) => email);
    // Substack: grace's paid plan ended (a free reader still) and linus turned mail off; Mailchimp: karen unsubscribed
    // there. Neither someone@localhost (refused by the sign-up rule) nor Ivan@Example.com (on the list already) comes in.
    expect(active).toEqual([
      "ivan@example.com",
      "joan@example.net",
      "ada@example.com",
      "grace@example.org",
      "margaret@example.com",
      "ken@example.com",
    ]);
    expect(suppressed).toEqual(["karen@example.com", "linus@example.com"]);
    expect((await subscribers(setup.dataDir, ["show", "ivan@example.com"])).stdout).toBe(before.stdout);
    const ada = await subscribers(setup.dataDir, ["show", "ada@example.com"]);
    expect(ada.stdout).toMatch(
      /^from page: imported \d{4}-\S+ from substack\.csv \(Substack\); signed up there 2021-03-04T10:15:00\.000Z; the file said /m,
    );

    const again = await subscribers(setup.dataDir, ["import", importFixture("substack.csv")]);
    expect(again.code).toBe(0);
    expect(await listed()).toEqual(rows);

    const send = await newsletter(setup.env(), ["send", NAME]);
    expect(send.code, send.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([...active].sort());
    // Ten runs of the owner's commands on a loaded machine.
  }, 150_000);

  // Substack's current export (email_list.<publication>.csv) in the columns it writes: active_subscription is the
  // paid flag (Ghost's own Substack importer, TryGhost/migrate mg-substack-members-csv, reads it so), email_disabled
  // the reader's own "no mail".
  it("a current Substack export: three free readers and two paid come in confirmed, the one with mail off suppressed; the send reaches the five", async () => {
    const run = await subscribers(setup.dataDir, ["import", importFixture("email_list.my-publication.csv")]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("5 readers added as confirmed.\n");
    expect(run.stderr).toContain("1 address added suppressed, never to be mailed: 1 unsubscribed.\n");
    const rows = await listed();
    const five = ["rosalind@example.com", "barbara@example.org", "edsger@example.net", "frances@example.com"];
    five.push("john@example.com");
    expect(rows.filter((row) => !row[4]).map(([email]) => email)).toEqual(five);
    expect(rows.filter((row) => row[4]).map(([email]) => email)).toEqual(["alan@example.org"]);

    const send = await newsletter(setup.env(), ["send", NAME]);
    expect(send.code, send.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([...five].sort());
  }, 120_000);

  it("a file that would suppress most of its rows waits for --yes; unsuppress --import lifts what its import suppressed, and only that", async () => {
    const file = importFixture("mailchimp-unsubscribed.csv");
    const held = await subscribers(setup.dataDir, ["import", file]);
    expect(held.code, held.stderr).toBe(3);
    expect(held.stderr).toContain("Careful: 2 of 2 rows would come in suppressed, more than half the file.");
    expect(await listed()).toEqual([[""]]);

    const run = await subscribers(setup.dataDir, ["import", file, "--yes"]);
    expect(run.code, run.stderr).toBe(0);
    expect((await listed()).map(([email, , , , suppression]) => [email, Boolean(suppression)])).toEqual([
      ["karen@example.com", true],
      ["ivan@example.com", true],
    ]);

    const lifted = await subscribers(setup.dataDir, ["unsuppress", "--import", file]);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stderr).toContain("mailchimp-unsubscribed.csv: 2 suppressions made by importing it lifted");
    expect((await listed()).map(([email, , , , suppression]) => [email, Boolean(suppression)])).toEqual([
      ["karen@example.com", false],
      ["ivan@example.com", false],
    ]);
    // Another file's name lifts nothing: the record names the file its import came from.
    const other = await subscribers(setup.dataDir, ["unsuppress", "--import", importFixture("mailchimp-cleaned.csv")]);
    expect(other.stderr).toContain("0 suppressions made by importing it lifted");
  }, 120_000);
});
