import { describe, expect, it } from "vitest";
import { csvField, subscribersCsv, unsubscribeLink } from "~/newsletter/subscribers-csv.server";

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
