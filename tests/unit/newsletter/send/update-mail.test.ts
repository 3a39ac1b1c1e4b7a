import { describe, expect, it } from "vitest";
import {
  composeUpdateMail,
  headerText,
  listId,
  senderDomain,
  updateMessageId,
} from "~/newsletter/send/update-mail.server";

const source = {
  name: "2026-11-20-first-launch",
  title: "First launch",
  html: "<p>It is <strong>out</strong>.</p>",
  text: "It is out.",
  url: "https://example.com/updates/2026-11-20-first-launch",
};
const reader = {
  email: "Reader@Example.org",
  unsubscribeUrl: "https://example.com/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678",
};
const site = { ownerName: "Alex Placeholder", siteUrl: "https://example.com", from: "Alex <updates@mail.example.net>" };

describe("the update mail", () => {
  it("goes to the one reader, with the one-click unsubscribe, list and message headers", () => {
    const mail = composeUpdateMail(source, reader, site);
    expect(mail.to).toBe("Reader@Example.org");
    expect(mail.subject).toBe("First launch");
    expect(mail.headers).toEqual({
      "List-Unsubscribe": `<${reader.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": "Alex Placeholder updates <updates.example.com>",
    });
    expect(mail.messageId).toMatch(/^<update\.2026-11-20-first-launch\.[0-9a-f]{24}@mail\.example\.net>$/);
  });

  // Postmark documents X-PM-Message-Stream as the SMTP header that picks a message stream (a Broadcast one for
  // newsletters); without POSTMARK_MESSAGE_STREAM the mail carries none and Postmark uses the default stream.
  it("names the Postmark message stream when the owner set one, and no stream otherwise", () => {
    expect(composeUpdateMail(source, reader, site).headers).not.toHaveProperty("X-PM-Message-Stream");
    const streamed = composeUpdateMail(source, reader, { ...site, messageStream: "broadcast" });
    expect(streamed.headers["X-PM-Message-Stream"]).toBe("broadcast");
  });

  it("sends replies to MAIL_REPLY_TO when the owner set one, and has no Reply-To otherwise", () => {
    expect(composeUpdateMail(source, reader, site)).not.toHaveProperty("replyTo");
    const owned = composeUpdateMail(source, reader, { ...site, replyTo: "Alex <alex@example.org>" });
    expect(owned.replyTo).toBe("Alex <alex@example.org>");
  });

  it("names the update's page and the reader's unsubscribe link in both parts, and loads nothing remote", () => {
    const mail = composeUpdateMail(source, reader, site);
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain(source.url);
      expect(part).toContain(reader.unsubscribeUrl);
    }
    expect(mail.html).toContain("<p>It is <strong>out</strong>.</p>");
    expect(mail.html).toContain('<meta name="color-scheme" content="light dark"/>');
    expect(mail.html).toContain("prefers-color-scheme: dark");
    // No image, no remote stylesheet or font, no script: nothing that reports an open.
    expect(mail.html).not.toMatch(/<img|<link|<script|url\(|@import/i);
    const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(links.sort()).toEqual([reader.unsubscribeUrl, site.siteUrl, source.url].sort());
  });

  it("keeps the same Message-ID for the same update and reader, in any letter case, and a new one for a test", () => {
    const a = updateMessageId("u", "Reader@Example.org", "example.com");
    expect(updateMessageId("u", "reader@example.org", "example.com")).toBe(a);
    expect(updateMessageId("v", "reader@example.org", "example.com")).not.toBe(a);
    expect(updateMessageId("u", "other@example.org", "example.com")).not.toBe(a);
    const test = composeUpdateMail(source, reader, site, { test: true });
    expect(test.messageId).not.toBe(composeUpdateMail(source, reader, site).messageId);
    expect(test.subject).toBe("[Test] First launch");
    expect(test.text).toMatch(/^This is a test copy/);
  });

  it("makes a title one line: no CR, LF or other control character reaches a header", () => {
    const hostile = { ...source, title: "Hello\r\nBcc: victim@example.org\r\n\r\n<b>body</b>\u2028x\u0000y" };
    const mail = composeUpdateMail(hostile, reader, site);
    expect(mail.subject).toBe("Hello Bcc: victim@example.org <b>body</b> x y");
    expect(mail.html).toContain("<title>Hello Bcc: victim@example.org &lt;b&gt;body&lt;/b&gt; x y</title>");
    expect(headerText("a".repeat(300))).toHaveLength(200);
  });

  it("takes the Message-ID's domain from MAIL_FROM, or the site's host when it has none", () => {
    expect(senderDomain("Alex <updates@Mail.Example.net>", "https://example.com")).toBe("mail.example.net");
    expect(senderDomain("updates@example.org", "https://example.com")).toBe("example.org");
    expect(senderDomain("nobody", "https://site.example")).toBe("site.example");
    expect(listId('Al"ex\r\n', "https://www.example.com/")).toBe("Alex updates <updates.www.example.com>");
    expect(listId("Zoë", "https://example.com")).toBe("Zo updates <updates.example.com>");
    expect(listId("«»", "https://example.com")).toBe("<updates.example.com>");
  });
});
