import { describe, expect, it } from "vitest";
import { describeImportConsent, importConsent } from "~/newsletter/admin/import/consent.server";
import { parseImportArgs } from "~/newsletter/admin/import/import-args.server";
import { addressRefusal } from "~/newsletter/admin/import/plan.server";
import { formatImportReport, importExitCode, type ImportOutcome } from "~/newsletter/admin/import/report.server";
import { readFixture } from "../../../../support/import-fixture";
import { counted, planRows, type ListedPlan } from "../../../../support/import-plan";

const nobody = () => false;
const plan = (file: string, isOnList: (email: string) => boolean = nobody) =>
  planRows(readFixture(file).rows, isOnList);

/** The plan in a compact shape: line and address per bucket, with the suppression's reason. */
const summary = (p: ListedPlan) => ({
  add: p.add.map((r) => `${r.line} ${r.email}`),
  suppressAdd: p.suppressAdd.map((r) => `${r.line} ${r.email} ${r.reason}`),
  alreadyOnList: p.alreadyOnList.map((r) => `${r.line} ${r.email}`),
  refused: p.refused.map((r) => `${r.line} ${JSON.stringify(r.text)} ${r.reason}`),
  duplicatesInFile: p.duplicatesInFile.map((r) => `${r.line} ${r.email} = ${r.firstLine}`),
});

describe("the import plan of each tool's export", () => {
  // Substack's email_list export, its columns as the export and Ghost's Substack importer (TryGhost/migrate,
  // mg-substack-members-csv) read them: active_subscription is the paid plan, email_disabled the reader's "no mail".
  it("Substack: free and paid readers come in; the one who turned mail off comes in suppressed", () => {
    expect(summary(plan("substack.csv"))).toEqual({
      add: ["2 ada@example.com", "3 grace@example.org", "7 margaret@example.com", "8 ken@example.com"],
      suppressAdd: ["4 linus@example.com unsubscribed"],
      alreadyOnList: [],
      refused: ['5 "not-an-address" not a valid address'],
      duplicatesInFile: ["6 ADA@example.com = 2"],
    });
  });

  // Buttondown's subscriber export (id, email, creation_date, subscriber_type, …) and its subscriber types as
  // docs.buttondown.com/api-subscribers-type lists them (regular, premium, unactivated, unsubscribed, …).
  it("Buttondown: each subscriber type has its fate; the unconfirmed and the unknown are named, not imported", () => {
    expect(summary(plan("buttondown.csv"))).toEqual({
      add: ["2 alan@example.com", "3 barbara@example.com", "8 guido@example.com"],
      suppressAdd: [
        "5 dennis@example.com unsubscribed",
        "6 edsger@example.com bounced",
        "7 frances@example.com complained",
      ],
      alreadyOnList: [],
      refused: [
        '4 "claude@example.com" never confirmed at the source (subscriber_type "unactivated")',
        '10 "hedy@example.com" subscriber_type "spammy" is not a status this import knows',
        '11 "" no address',
      ],
      duplicatesInFile: [],
    });
  });

  // Mailchimp's audience export: one file per status, "Email Address", OPTIN_TIME, CONFIRM_TIME, LEID, EUID, … and
  // UNSUB_TIME/UNSUB_CAMPAIGN_TITLE in the unsubscribed file, CLEAN_TIME/CLEAN_CAMPAIGN_TITLE in the cleaned one.
  it("Mailchimp: the subscribed file, then the unsubscribed one, then the cleaned one", () => {
    const subscribed = plan("mailchimp-subscribed.csv");
    expect(summary(subscribed)).toEqual({
      add: ["2 ivan@example.com", "3 joan@example.net"],
      suppressAdd: [],
      alreadyOnList: [],
      refused: ['5 "someone@localhost" not a valid address'],
      duplicatesInFile: ["6 Ivan@Example.com = 2"],
    });
    const onList = new Set(subscribed.add.map((r) => r.email.toLowerCase()));
    expect(summary(plan("mailchimp-unsubscribed.csv", (email) => onList.has(email.toLowerCase())))).toEqual({
      add: [],
      // The file's word that ivan left is the list's to apply, whatever came first: it suppresses him.
      suppressAdd: ["2 karen@example.com unsubscribed", "3 ivan@example.com unsubscribed"],
      alreadyOnList: [],
      refused: [],
      duplicatesInFile: [],
    });
    expect(summary(plan("mailchimp-cleaned.csv")).suppressAdd).toEqual(["2 leslie@example.org bounced"]);
  });

  // Kit's subscriber fields (first_name, email_address, its state: active, inactive, cancelled, bounced,
  // complained; Kit's API and help.kit.com "Subscriber types defined", where inactive is the Unconfirmed reader).
  it("Kit: active in, inactive (never confirmed) named and left out, cancelled as left, bounced and complained", () => {
    expect(summary(plan("kit.csv"))).toEqual({
      add: ["2 mary@example.com", "7 seymour@example.com"],
      suppressAdd: ["4 olga@example.com unsubscribed", "5 peter@example.com bounced", "6 radia@example.com complained"],
      alreadyOnList: [],
      refused: [
        '3 "niklaus@example.com" never confirmed at the source (status "inactive")',
        '8 "tim@@example.com" not a valid address',
      ],
      duplicatesInFile: [],
    });
  });

  // Ghost's members CSV (id, email, name, note, subscribed_to_emails, complimentary_plan, stripe_customer_id,
  // created_at, deleted_at, labels, tiers), the layout Ghost's own member import and export use.
  it("Ghost: subscribed_to_emails false comes in suppressed; an empty one is the default, subscribed", () => {
    expect(summary(plan("ghost.csv"))).toEqual({
      add: ["2 ursula@example.com", "5 whitfield@example.com"],
      suppressAdd: ["3 vint@example.com unsubscribed"],
      alreadyOnList: [],
      refused: ['6 "xavier@example" not a valid address'],
      duplicatesInFile: [],
    });
  });

  // Substack's current export, email_list.<publication>.csv, in the columns it writes (email, active_subscription,
  // expiry, plan, email_disabled, created_at, first_payment_at): three free readers, two paid, one with mail off.
  it("Substack's current export: three free and two paid readers confirmed, the one with mail off suppressed", () => {
    const planned = plan("email_list.my-publication.csv");
    expect(planned.add.map((r) => r.email)).toEqual([
      "rosalind@example.com",
      "barbara@example.org",
      "edsger@example.net",
      "frances@example.com",
      "john@example.com",
    ]);
    expect(summary(planned).suppressAdd).toEqual(["7 alan@example.org unsubscribed"]);
    expect(planned.refused).toEqual([]);
  });

  it("a plain list: one address a line, trimmed, blank lines skipped", () => {
    expect(summary(plan("plain.txt"))).toEqual({
      add: ["1 yukihiro@example.com", "2 zoe@example.com", "6 anders@example.org"],
      suppressAdd: [],
      alreadyOnList: [],
      refused: ['4 "not an address" not a valid address'],
      duplicatesInFile: ["5 YUKIHIRO@example.com = 1"],
    });
  });

  it("the same file again adds nothing: its readers are on the list, those who left go to the list again", () => {
    const again = summary(plan("substack.csv", () => true));
    expect(again.add).toEqual([]);
    // The list answers these (OwnerOperations.addImported): already suppressed, they change nothing.
    expect(again.suppressAdd).toEqual(["4 linus@example.com unsubscribed"]);
    expect(again.alreadyOnList).toEqual([
      "2 ada@example.com",
      "3 grace@example.org",
      "7 margaret@example.com",
      "8 ken@example.com",
    ]);
    expect(again.refused).toEqual(['5 "not-an-address" not a valid address']);
  });
});

describe("the plan's rules", () => {
  const row = (line: number, address: string, status: "active" | "left") => ({
    line,
    address,
    originalDate: null,
    statusInFile: status === "left" ? "status" : null,
    status:
      status === "left"
        ? ({ kind: "suppressed", reason: "unsubscribed", said: "status" } as const)
        : ({ kind: "active" } as const),
  });

  it("an address written twice with two statuses is taken at its most careful word, either way round", () => {
    for (const rows of [
      [row(2, "ada@example.com", "active"), row(3, "Ada@Example.com", "left")],
      [row(2, "ada@example.com", "left"), row(3, "Ada@Example.com", "active")],
    ]) {
      const p = planRows(rows, nobody);
      expect(p.add).toEqual([]);
      expect(p.suppressAdd).toMatchObject([{ line: 2, email: "ada@example.com", reason: "unsubscribed" }]);
      expect(p.duplicatesInFile).toEqual([{ line: 3, email: "Ada@Example.com", firstLine: 2 }]);
    }
  });

  it("uses the sign-up's own address rule", () => {
    expect(addressRefusal("ada@example.com")).toBeNull();
    expect(addressRefusal("ada@gmail")).toBe("not a valid address");
    expect(addressRefusal(".ada@example.com")).toBe("not a valid address");
    expect(addressRefusal(`${"a".repeat(65)}@example.com`)).toBe("not a valid address");
    const longDomain = Array.from({ length: 4 }, () => "b".repeat(60)).join(".");
    expect(addressRefusal(`${"a".repeat(64)}@${longDomain}.com`)).toBe("longer than 255 characters");
    expect(addressRefusal("")).toBe("no address");
  });
});

describe("the import's report", () => {
  const outcome = (overrides: Partial<ImportOutcome> = {}): ImportOutcome => ({
    file: "substack.csv",
    format: "substack",
    dryRun: false,
    rowCount: 7,
    plan: counted(plan("substack.csv")),
    failed: [],
    ...overrides,
  });

  it("accounts for every row, with line numbers and reasons", () => {
    expect(formatImportReport(outcome())).toBe(
      [
        "substack.csv: Substack, 7 rows.",
        "4 readers added as confirmed.",
        "1 address added suppressed, never to be mailed: 1 unsubscribed.",
        "1 row repeats an address of an earlier row:",
        "  line 6: ADA@example.com (as line 2)",
        "1 row refused, not imported:",
        '  line 5: "not-an-address": not a valid address',
        "",
      ].join("\n"),
    );
    expect(importExitCode(outcome())).toBe(0);
  });

  it("with --dry-run says what would happen and that nothing was written", () => {
    const text = formatImportReport(outcome({ dryRun: true, plan: counted(plan("buttondown.csv")), rowCount: 10 }));
    expect(text).toContain("3 readers would be added as confirmed.\n");
    expect(text).toContain(
      "3 addresses would be added suppressed, never to be mailed: 1 bounced, 1 complained, 1 unsubscribed.\n",
    );
    expect(text).toContain("3 rows refused, not imported:\n");
    expect(text.endsWith("Dry run: nothing written.\n")).toBe(true);
  });

  it("gets its plurals right, and names a second run's addresses as already on the list", () => {
    const again = plan("mailchimp-cleaned.csv", () => true);
    // What the list answered on the first run's file again: the address was suppressed already.
    again.alreadyOnList.push(...again.suppressAdd.splice(0).map(({ line, email }) => ({ line, email })));
    const text = formatImportReport(
      outcome({ file: "cleaned.csv", format: "mailchimp", rowCount: 1, plan: counted(again) }),
    );
    expect(text).toBe(
      "cleaned.csv: Mailchimp, 1 row.\n0 readers added as confirmed.\n1 address is already on the list, left as is.\n",
    );
  });

  it("exits 1 and names the rows the list could not store", () => {
    const failed = [{ line: 2, email: "ada@example.com", error: "database is locked" }];
    const text = formatImportReport(outcome({ failed }));
    expect(text).toContain(
      "1 row could not be written; run the same import again to add it (what was written is not written twice):\n" +
        "  line 2: ada@example.com: database is locked\n",
    );
    expect(importExitCode(outcome({ failed }))).toBe(1);
  });
});

describe("the import verb's arguments and the consent record's sentence", () => {
  it("takes one file and --dry-run in either order, and refuses anything else", () => {
    expect(parseImportArgs(["list.csv"])).toEqual({ file: "list.csv", dryRun: false, yes: false });
    expect(parseImportArgs(["--dry-run", "list.csv"])).toEqual({ file: "list.csv", dryRun: true, yes: false });
    expect(parseImportArgs(["list.csv", "--dry-run"])).toEqual({ file: "list.csv", dryRun: true, yes: false });
    expect(parseImportArgs(["--yes", "list.csv"])).toEqual({ file: "list.csv", dryRun: false, yes: true });
    expect(parseImportArgs([])).toEqual({ error: "Name the file to import." });
    expect(parseImportArgs(["a.csv", "b.csv"])).toEqual({ error: "Import one file at a time." });
    expect(parseImportArgs(["a.csv", "--force"])).toEqual({ error: "Unknown option --force." });
  });

  it("says where a reader came from in one sentence", () => {
    const consent = importConsent({
      file: "members.csv",
      format: "ghost",
      importedAt: new Date("2026-11-27T07:00:00Z"),
      originalDate: "2019-10-30T14:52:08.000Z",
      statusInFile: 'subscribed_to_emails "false"',
    });
    expect(describeImportConsent(consent)).toBe(
      "imported 2026-11-27T07:00:00.000Z from members.csv (Ghost); signed up there 2019-10-30T14:52:08.000Z; " +
        'the file said subscribed_to_emails "false"',
    );
    expect(describeImportConsent({ ...consent, originalDate: null, statusInFile: null })).toBe(
      "imported 2026-11-27T07:00:00.000Z from members.csv (Ghost); sign-up date not in the file",
    );
  });
});
