import { describe, expect, it } from "vitest";
import { csvField, csvValue, subscribersCsv } from "~/newsletter/admin/subscribers-csv.server";
import { unsubscribeLink } from "~/newsletter/list/unsubscribe-token";
import { FORMULA_START, readCsv } from "../../../support/csv";

describe("the subscribers export", () => {
  it("links to the unsubscribe page on the site's own address (the link every mail carries)", () => {
    expect(unsubscribeLink("https://example.com", "3f1e2d4c-5b6a-4789-8abc-def012345678")).toBe(
      "https://example.com/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678",
    );
    expect(unsubscribeLink("https://example.com/", "t")).toBe("https://example.com/unsubscribe?token=t");
  });

  it("quotes fields with commas, quotes or line breaks, and keeps spreadsheet formulas inert", () => {
    expect(csvField("plain@example.com")).toBe("plain@example.com");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("=HYPERLINK(1)@example.com")).toBe("'=HYPERLINK(1)@example.com");
    expect(csvField("+1@example.com")).toBe("'+1@example.com");
    expect(csvField("-x,y")).toBe(`"'-x,y"`);
  });

  // Any text, the form's rule aside (a restored backup may hold anything): the export through the server and the
  // owner's tool is in tests/integration/abuse.test.ts.
  it("round-trips any stored text exactly, keeps distinct ones distinct, and no cell starts like a formula", () => {
    const emails = [
      "-csv@x.co",
      "'-csv@x.co",
      "''-csv@x.co",
      "'plain@x.co",
      "plain@x.co",
      '=HYPERLINK("http://evil")@x.co',
      "+1@x.co",
      "@at@x.co",
      "\tTab@x.co",
      "\rcr@x.co",
      'a,"b"@x.co',
      "line\r\nbreak@x.co",
    ];
    const rows = emails.map((email, i) => ({
      email,
      createdAt: `2026-11-23T08:00:0${i % 10}.000Z`,
      unsubscribeToken: `t${i}`,
    }));
    const [header, ...records] = readCsv(subscribersCsv(rows, "https://example.com"));
    expect(header).toEqual([
      "email",
      "subscribed_at",
      "unsubscribe_link",
      "state",
      "confirmed_at",
      "suppressed",
      "suppressed_at",
      "suppressed_because",
    ]);
    const fields = records.map((record) => record[0]!);
    expect(new Set(fields).size).toBe(emails.length);
    expect(fields.map(csvValue)).toEqual(emails);
    for (const field of fields) expect(field).not.toMatch(FORMULA_START);
  });

  it("names a suppressed reader's reason, time and the relay's words", () => {
    const suppression = {
      reason: "bounced" as const,
      at: "2026-11-27T08:00:00.000Z",
      detail: "550 5.1.1 unknown, gone",
    };
    const csv = subscribersCsv(
      [{ email: "a@example.com", createdAt: "2026-11-23T08:00:00.000Z", unsubscribeToken: "tok", suppression }],
      "https://example.com",
    );
    expect(csv.split("\r\n")[1]).toBe(
      "a@example.com,2026-11-23T08:00:00.000Z,https://example.com/unsubscribe?token=tok,confirmed,," +
        'bounced,2026-11-27T08:00:00.000Z,"550 5.1.1 unknown, gone"',
    );
  });

  it("has a header, then address, date and link per subscriber, with CRLF line ends", () => {
    const csv = subscribersCsv(
      [{ email: "a@example.com", createdAt: "2026-11-23T08:00:00.000Z", unsubscribeToken: "tok" }],
      "https://example.com",
    );
    expect(csv).toBe(
      "email,subscribed_at,unsubscribe_link,state,confirmed_at,suppressed,suppressed_at,suppressed_because\r\n" +
        "a@example.com,2026-11-23T08:00:00.000Z,https://example.com/unsubscribe?token=tok,confirmed,,,,\r\n",
    );
    expect(subscribersCsv([], "https://example.com")).toBe(
      "email,subscribed_at,unsubscribe_link,state,confirmed_at,suppressed,suppressed_at,suppressed_because\r\n",
    );
  });
});
