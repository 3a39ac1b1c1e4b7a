import { describe, expect, it } from "vitest";
import { detectFormat } from "~/newsletter/admin/import/formats.server";
import { parseOriginalDate } from "~/newsletter/admin/import/original-date.server";
import { readRows } from "~/newsletter/admin/import/read-rows.server";
import { classifyInverted, classifyStatus } from "~/newsletter/admin/import/status.server";
import { parseCsv } from "~/newsletter/admin/import/csv-reader.server";
import { readFixture } from "../../../../support/import-fixture";

describe("an export's format, told by its header row", () => {
  it.each([
    ["substack.csv", "substack"],
    ["buttondown.csv", "buttondown"],
    ["mailchimp-subscribed.csv", "mailchimp"],
    ["mailchimp-unsubscribed.csv", "mailchimp"],
    ["mailchimp-cleaned.csv", "mailchimp"],
    ["kit.csv", "kit"],
    ["ghost.csv", "ghost"],
    ["plain.txt", "plain"],
  ])("%s is read as %s", (file, format) => {
    expect(readFixture(file).detected.format).toBe(format);
  });

  it("tells Ghost from Substack when a Ghost export also has an email_disabled column", () => {
    expect(detectFormat(["id", "email", "subscribed_to_emails", "email_disabled"])).toMatchObject({ format: "ghost" });
    expect(detectFormat(["email", "email_disabled", "created_at"])).toMatchObject({ format: "substack" });
  });

  it("finds the address column by its name in any case, spacing or separator", () => {
    for (const header of ["email", "EMAIL", " Email Address ", "email_address", "E-mail", "e-mail address", "Mail"]) {
      const detected = detectFormat(["Name", header, "Tags"]);
      expect(detected, header).toMatchObject({ emailIndex: 1, hasHeader: true });
    }
  });

  it("takes a file whose first line is an address as a plain list, and refuses one with no address column", () => {
    expect(detectFormat(["ada@example.com"])).toMatchObject({ format: "plain", hasHeader: false });
    expect(detectFormat(["name", "phone"])).toEqual({
      error:
        "No address column: the first row should name one (email, Email Address, email_address, E-mail, …), " +
        "or the file should hold one address a line.",
    });
    expect(readRows(parseCsv("name,phone\nAda,123\n"))).toHaveProperty("error");
    expect(readRows([])).toEqual({ error: "The file holds no rows." });
  });

  it("reads a plain CSV with an address, a date and a status column it knows", () => {
    const read = readRows(
      parseCsv(
        "Name,E-mail,Subscribed At,Status\nAda,ada@example.com,2020-01-02,unsubscribed\nBob,bob@example.com,,\n",
      ),
    );
    expect(read).toMatchObject({ detected: { format: "csv" } });
    expect("rows" in read && read.rows).toEqual([
      {
        line: 2,
        address: "ada@example.com",
        originalDate: "2020-01-02T00:00:00.000Z",
        statusInFile: 'Status "unsubscribed"',
        status: { kind: "suppressed", reason: "unsubscribed", said: 'Status "unsubscribed"' },
      },
      { line: 3, address: "bob@example.com", originalDate: null, statusInFile: null, status: { kind: "active" } },
    ]);
  });

  it("prefers Mailchimp's opt-in time, and takes the confirmation time when the opt-in is empty", () => {
    const rows = readFixture("mailchimp-subscribed.csv").rows;
    expect(rows.map((row) => [row.line, row.address, row.originalDate])).toEqual([
      [2, "ivan@example.com", "2019-03-21T14:05:33.000Z"],
      [3, "joan@example.net", "2020-07-01T08:00:00.000Z"],
      [5, "someone@localhost", "2019-01-01T00:00:00.000Z"],
      [6, "Ivan@Example.com", "2019-03-21T14:05:33.000Z"],
    ]);
  });

  it("reads Mailchimp's unsubscribed and cleaned files as suppressing every row", () => {
    expect(readFixture("mailchimp-unsubscribed.csv").rows.map((row) => row.status)).toEqual([
      { kind: "suppressed", reason: "unsubscribed", said: "unsubscribed export (UNSUB_TIME)" },
      { kind: "suppressed", reason: "unsubscribed", said: "unsubscribed export (UNSUB_TIME)" },
    ]);
    expect(readFixture("mailchimp-cleaned.csv").rows[0]?.status).toEqual({
      kind: "suppressed",
      reason: "bounced",
      said: "cleaned export (CLEAN_TIME)",
    });
  });

  // Substack's columns as Ghost's own Substack importer reads them (TryGhost/migrate,
  // packages/mg-substack-members-csv: lib/process.js maps email_disabled to subscribed_to_emails, and
  // active_subscription only picks the paid plan): active_subscription is the paid flag, never the mail's.
  it("reads Substack's email_disabled alone: active_subscription says paid or free, and a free reader is a reader", () => {
    const rows = readFixture("substack.csv").rows;
    expect(rows.map((row) => [row.address, row.status.kind, row.statusInFile])).toEqual([
      ["ada@example.com", "active", 'email_disabled "false"'],
      ["grace@example.org", "active", 'email_disabled "false"'],
      ["linus@example.com", "suppressed", 'email_disabled "true"'],
      ["not-an-address", "active", 'email_disabled "false"'],
      ["ADA@example.com", "active", 'email_disabled "false"'],
      ["margaret@example.com", "active", 'email_disabled "false"'],
      ["ken@example.com", "active", 'email_disabled "false"'],
    ]);
    expect(rows.find((row) => row.address === "margaret@example.com")?.originalDate).toBe("2020-12-31T22:30:00.000Z");
    expect(rows.find((row) => row.address === "ken@example.com")?.originalDate).toBeNull();
  });

  // The older layout of Ghost's importer fixture (fixtures_signup_emails.csv: email, active_subscription, expiry,
  // email_disabled, created_at), where a free reader's active_subscription and expiry are empty.
  it("reads Substack's older export, whose free readers have an empty active_subscription, the same way", () => {
    const read = readFixture("substack-older.csv");
    expect(read.detected.format).toBe("substack");
    expect(read.rows.map((row) => [row.address, row.status.kind])).toEqual([
      ["hopper@example.com", "active"],
      ["knuth@example.com", "active"],
      ["liskov@example.com", "suppressed"],
      ["lovelace@example.com", "active"],
    ]);
  });
});

describe("a status cell's meaning", () => {
  it.each([
    ["unsubscribed", "unsubscribed"],
    ["Cancelled", "unsubscribed"],
    ["false", "unsubscribed"],
    ["removed", "unsubscribed"],
    ["cleaned", "bounced"],
    ["bounced", "bounced"],
    ["undeliverable", "bounced"],
    ["complained", "complained"],
  ])("%s suppresses as %s", (value, reason) => {
    expect(classifyStatus("status", value)).toEqual({ kind: "suppressed", reason, said: `status "${value}"` });
  });

  it.each(["active", "regular", "premium", "gifted", "churned", "TRUE", "free", "paid", "comped", " Subscribed ", ""])(
    "%j is a reader who gets the newsletter",
    (value) => expect(classifyStatus("status", value)).toEqual({ kind: "active" }),
  );

  it("refuses a reader who never confirmed, and a status it does not know, in words the owner can act on", () => {
    // Kit's "inactive" is its Unconfirmed subscriber (help.kit.com, "Subscriber types defined"): never opted in.
    expect(classifyStatus("status", "inactive")).toEqual({
      kind: "refused",
      reason: 'never confirmed at the source (status "inactive")',
    });
    expect(classifyStatus("subscriber_type", "unactivated")).toEqual({
      kind: "refused",
      reason: 'never confirmed at the source (subscriber_type "unactivated")',
    });
    expect(classifyStatus("subscriber_type", "spammy")).toEqual({
      kind: "refused",
      reason: 'subscriber_type "spammy" is not a status this import knows',
    });
  });

  it("reads an inverted yes/no column (email_disabled) the other way round", () => {
    expect(classifyInverted("email_disabled", "true")).toMatchObject({ kind: "suppressed", reason: "unsubscribed" });
    expect(classifyInverted("email_disabled", "false")).toEqual({ kind: "active" });
    expect(classifyInverted("email_disabled", "")).toEqual({ kind: "active" });
    expect(classifyInverted("email_disabled", "maybe")).toMatchObject({ kind: "refused" });
  });
});

describe("the original sign-up date", () => {
  it.each([
    ["2021-03-04T10:15:00.000Z", "2021-03-04T10:15:00.000Z"],
    ["2020-12-31T23:30:00+01:00", "2020-12-31T22:30:00.000Z"],
    ["2022-02-02 09:30:00.123456+00:00", "2022-02-02T09:30:00.123Z"],
    ["2019-03-21 14:05:33", "2019-03-21T14:05:33.000Z"],
    ["2023-03-03 03:03:03 UTC", "2023-03-03T03:03:03.000Z"],
    ["2023-03-03T03:03:03-0530", "2023-03-03T08:33:03.000Z"],
    ["2020-01-02", "2020-01-02T00:00:00.000Z"],
  ])("%s is %s", (text, iso) => expect(parseOriginalDate(text)).toBe(iso));

  it.each(["", "sometime in 2020", "03/04/2021", "2021-02-31", "2021-13-01", "2021-01-01 24:00:00", "1614852900"])(
    "%j is no date (never guessed)",
    (text) => expect(parseOriginalDate(text)).toBeNull(),
  );
});
