import { describe, expect, it } from "vitest";
import { csvField, csvValue, subscribersCsv, unsubscribeLink } from "~/newsletter/subscribers-csv.server";

/** An RFC 4180 reader, as a spreadsheet's CSV import is: quoted fields, doubled quotes, CRLF between records. */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i += 1;
    } else field += char;
  }
  return records;
}

describe("the subscribers export", () => {
  it("links to the unsubscribe page on the site's own address", () => {
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

  it("round-trips every address exactly, keeps distinct ones distinct, and no cell starts like a formula", () => {
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
    expect(header).toEqual(["email", "subscribed_at", "unsubscribe_link"]);
    const fields = records.map((record) => record[0]!);
    expect(new Set(fields).size).toBe(emails.length);
    expect(fields.map(csvValue)).toEqual(emails);
    for (const field of fields) expect(field).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("has a header, then address, date and link per subscriber, with CRLF line ends", () => {
    const csv = subscribersCsv(
      [{ email: "a@example.com", createdAt: "2026-11-23T08:00:00.000Z", unsubscribeToken: "tok" }],
      "https://example.com",
    );
    expect(csv).toBe(
      "email,subscribed_at,unsubscribe_link\r\n" +
        "a@example.com,2026-11-23T08:00:00.000Z,https://example.com/unsubscribe?token=tok\r\n",
    );
    expect(subscribersCsv([], "https://example.com")).toBe("email,subscribed_at,unsubscribe_link\r\n");
  });
});
