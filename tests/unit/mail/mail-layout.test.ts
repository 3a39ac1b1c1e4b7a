import { describe, expect, it } from "vitest";
import { TEST_NOTE } from "~/content/mail-copy";
import { renderMail, type ReaderMailInput } from "~/mail/layout/render-mail.server";

const site = { ownerName: "Alex Placeholder", siteUrl: "https://example.com" };
const confirmUrl = "https://example.com/confirm?token=TOKEN_abc-123";
const unsubscribeUrl = "https://example.com/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678";
const pageUrl = "https://example.com/updates/2026-11-20-first-launch";
const LONG_URL = `https://example.com/${"a".repeat(200)}`;

const MARKDOWN = [
  "Shipped the tracker's first screen (https://example.com/updates).",
  "",
  "## What happened",
  "",
  "- five people tried it",
  "- two paid",
  "",
  "> Nobody reads onboarding copy.",
  "",
  "```",
  "npm run newsletter -- send 2026-11-20-first-launch",
  "```",
  "",
  LONG_URL,
].join("\n");

const update = (over: Partial<ReaderMailInput> = {}) =>
  renderMail({
    kind: "update",
    ...site,
    title: "First launch",
    body: { markdown: MARKDOWN },
    pageUrl,
    unsubscribeUrl,
    ...over,
  });

const confirmation = () =>
  renderMail({ kind: "confirmation", ...site, subject: "Confirm your subscription to Alex's updates", confirmUrl });

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
const headings = (html: string) => [...html.matchAll(/<h(\d)>/g)].map((match) => Number(match[1]));
/** A text part's lines over 78 characters that are not one unbreakable address. */
const overlong = (text: string) =>
  text.split("\n").filter((line) => line.length > 78 && !/^<?https?:\/\/\S+>?[.,;:!?]*$/.test(line));

describe("one layout for every mail", () => {
  it("fits any screen and both colour schemes: viewport, color-scheme, dark styles, wrapping links", () => {
    for (const { html } of [confirmation(), update()]) {
      expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
      expect(html).toContain('<meta name="color-scheme" content="light dark"/>');
      expect(html).toContain("@media (prefers-color-scheme: dark)");
      expect(html).toContain("overflow-wrap: anywhere");
      // The header: the owner's name, first in the mail.
      expect(html).toMatch(/<body[^>]*><div class="mail"[^>]*><p class="brand"[^>]*>Alex Placeholder<\/p>/);
    }
  });

  it("the confirmation: its button and link to the confirm page, the owner, and no unsubscribe link", () => {
    const { html, text } = confirmation();
    expect(hrefs(html)).toEqual([confirmUrl, confirmUrl, site.siteUrl]);
    expect(html).toMatch(/<a class="button" href="[^"]+" style="display:block;/);
    expect(html).not.toMatch(/unsubscribe/i);
    expect(text).not.toMatch(/unsubscribe/i);
    for (const part of [html, text]) expect(part).toContain("ignoring this mail is enough to stay off the list");
    expect(text.split("\n")).toContain(confirmUrl);
    expect(text).toMatch(/^Hello,\n/);
    expect(text).toMatch(/\n-- \nAlex Placeholder\nhttps:\/\/example\.com\n$/);
    expect(headings(html)).toEqual([1]);
  });

  it("an update: title h1, Markdown ## as h2, the quote, list and code, the page link and the reader's way out", () => {
    const { html } = update();
    expect(headings(html)).toEqual([1, 2]);
    expect(html).toContain("<h1>First launch</h1>");
    expect(html).toContain("<h2>What happened</h2>");
    expect(html).toMatch(/<blockquote>\s*<p>Nobody reads onboarding copy\.<\/p>\s*<\/blockquote>/);
    expect(html).toMatch(/<pre><code>npm run newsletter/);
    expect(html).toMatch(/blockquote \{[^}]*border-left: 4px solid/);
    expect(hrefs(html).sort()).toEqual(
      ["https://example.com/updates", LONG_URL, pageUrl, site.siteUrl, unsubscribeUrl].sort(),
    );
    expect(html).not.toContain(TEST_NOTE);
  });

  it("an update's text part: 72 columns, addresses alone or in brackets, `-- ` before the footer", () => {
    const { text } = update();
    expect(overlong(text)).toEqual([]);
    expect(text).toContain("<https://example.com/updates>.");
    // No address glued to the punctuation after it, or to an opening parenthesis.
    expect(text).not.toMatch(/\(https?:|(?<!<)https?:\/\/[^\s>]*[.,;:)]$/m);
    const lines = text.split("\n");
    expect(lines).toContain(LONG_URL);
    expect(lines).toContain(unsubscribeUrl);
    expect(lines).toContain(pageUrl);
    expect(lines).toContain("## What happened".replace("## ", ""));
    expect(lines).toContain("> Nobody reads onboarding copy.");
    const separator = lines.indexOf("-- ");
    expect(separator).toBeGreaterThan(lines.indexOf(pageUrl));
    expect(lines.slice(separator).join("\n")).toContain(unsubscribeUrl);
    expect(lines.filter((line) => line.startsWith("--"))).toEqual(["-- "]);
  });

  it("a test copy says so first in both parts; a welcome without a page has no page link", () => {
    const test = update({ kind: "test" });
    expect(test.text.startsWith(`${TEST_NOTE}\n`)).toBe(true);
    expect(test.html).toMatch(new RegExp(`<p class="note"[^>]*>${TEST_NOTE}</p><h1>First launch</h1>`));
    const welcome = update({
      kind: "welcome",
      title: "Welcome",
      body: { markdown: "Glad you are here." },
      pageUrl: "",
    });
    expect(hrefs(welcome.html).sort()).toEqual([site.siteUrl, unsubscribeUrl].sort());
    expect(welcome.text).toContain(unsubscribeUrl);
  });

  it("takes a body already rendered by the site's renderer as it is", () => {
    const { html, text } = update({ body: { html: "<p>It is <strong>out</strong>.</p>", text: "It is out." } });
    expect(html).toContain('<div class="body"><p>It is <strong>out</strong>.</p></div>');
    expect(text).toMatch(/^First launch\n\nIt is out\.\n/);
  });

  it("escapes every name, title and address once, with React's one escape", () => {
    const hostile = renderMail({
      kind: "update",
      ownerName: 'Al <b>"x"</b> & Co',
      siteUrl: site.siteUrl,
      title: "Hello\r\nBcc: victim@example.org\r\n\r\n<b>body</b>",
      body: { markdown: "text" },
      pageUrl: 'https://example.com/a"onmouseover="x',
      unsubscribeUrl,
    });
    expect(hostile.html).toContain("<title>Hello Bcc: victim@example.org &lt;b&gt;body&lt;/b&gt;</title>");
    expect(hostile.html).toContain("Al &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; Co");
    expect(hostile.html).toContain('href="https://example.com/a&quot;onmouseover=&quot;x"');
    expect(hostile.html).not.toMatch(/&amp;(?:lt|gt|quot|amp);|<b>/);
    expect(hostile.text).toMatch(/^Hello Bcc: victim@example\.org <b>body<\/b>\n/);
  });

  it("tracks nothing, loads nothing, and stays far under Gmail's 102 KB clip", () => {
    for (const { html } of [confirmation(), update(), update({ kind: "test" })]) {
      expect(html).not.toMatch(/<img|<link|<script|url\(|@import|<iframe/i);
      expect(Buffer.byteLength(html)).toBeLessThan(8 * 1024);
    }
    // A long update (about 5,000 words): the layout adds a few KB, and the HTML part Gmail clips at stays far under.
    const words = `${"A paragraph of an update, in words. ".repeat(20)}\n\n`.repeat(40);
    const long = update({ body: { markdown: words } });
    expect(Buffer.byteLength(long.html)).toBeLessThan(102 * 1024);
    expect(Buffer.byteLength(long.html) - Buffer.byteLength(words)).toBeLessThan(8 * 1024);
  });
});
