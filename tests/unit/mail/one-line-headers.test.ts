import nodemailer from "nodemailer";
import { describe, expect, it } from "vitest";
import { oneLine, withOneLineFields } from "~/mail/one-line-headers";

const link = "<https://example.com/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678>";

/** The raw header block Nodemailer writes for these extra headers. */
async function rawHeader(headers: Parameters<typeof withOneLineFields>[0]): Promise<string[]> {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const info = await composer.sendMail({
    from: "a@example.com",
    to: "b@example.org",
    subject: "s",
    text: "t",
    headers,
  });
  const raw = (info.message as Buffer).toString("utf8");
  return raw.slice(0, raw.indexOf("\n\n")).split("\n");
}

describe("one-line header fields", () => {
  it("are what Nodemailer would otherwise fold", async () => {
    const folded = await rawHeader({ "List-Unsubscribe": link });
    expect(folded).not.toContain(`List-Unsubscribe: ${link}`);
    const prepared = await rawHeader(
      withOneLineFields({ "List-Unsubscribe": link, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }),
    );
    expect(prepared).toContain(`List-Unsubscribe: ${link}`);
    expect(prepared).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  });

  it("leave other fields to Nodemailer, and a value that cannot be one line goes out encoded", () => {
    expect(withOneLineFields({ "List-Id": "x <y>", "list-unsubscribe": link })).toEqual({
      "List-Id": "x <y>",
      "list-unsubscribe": { prepared: true, value: link },
    });
    expect(oneLine("List-Unsubscribe", "<https://example.com/a\r\nBcc: x@example.org>")).toBe(
      "<https://example.com/a\r\nBcc: x@example.org>",
    );
    expect(oneLine("List-Unsubscribe", "<https://exämple.com/>")).toBe("<https://exämple.com/>");
    expect(oneLine("List-Unsubscribe", `<https://example.com/${"a".repeat(990)}>`)).toEqual(expect.any(String));
  });
});
