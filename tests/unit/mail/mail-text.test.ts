import { describe, expect, it } from "vitest";
import { bracketUrls, oneLine, trimUrl, wrapLine, wrapText } from "~/mail/layout/mail-text.server";

const LONG_URL = `https://example.com/updates/${"a".repeat(200)}`;

/** The lines over 78 characters that are not one unbreakable address (in brackets or not, after a prefix). */
const overlong = (text: string) =>
  text.split("\n").filter((line) => line.length > 78 && !/^(?:> ?)*\s*<?https?:\/\/\S+>?[.,;:!?]*$/.test(line));

describe("the text part's wrapping", () => {
  it("wraps prose at 72 columns on spaces, and leaves a line that fits exactly as it is", () => {
    const prose =
      "Shipped the first screen of the tracker this week, tested it with five people, and learned that nobody reads onboarding copy at all.";
    const lines = wrapLine(prose);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(72);
    expect(lines.join(" ")).toBe(prose);
    expect(wrapLine("const  x  =  1;   // spacing kept")).toEqual(["const  x  =  1;   // spacing kept"]);
  });

  it("repeats a quote's marker and indents a list item's continuation under its text", () => {
    const quote = `> ${"quoted words ".repeat(10).trim()}`;
    const quoted = wrapLine(quote);
    expect(quoted.length).toBeGreaterThan(1);
    for (const line of quoted) expect(line).toMatch(/^> \S/);
    const item = wrapLine(`- ${"listed words ".repeat(10).trim()}`);
    expect(item[0]).toMatch(/^- listed/);
    for (const line of item.slice(1)) expect(line).toMatch(/^ {2}\S/);
    // Under the item's text: the quote marker, then as many spaces as the indent and the number took.
    const nested = wrapLine(`>   12. ${"nested ".repeat(15).trim()}`);
    for (const line of nested.slice(1)) expect(line).toMatch(/^> {7}\S/);
    for (const line of [...quoted, ...item, ...nested]) expect(line.length).toBeLessThanOrEqual(72);
  });

  it("sets an address in running text in angle brackets, its own parentheses dropped, never glued to punctuation", () => {
    expect(bracketUrls("Read the updates (https://example.com/updates).")).toBe(
      "Read the updates <https://example.com/updates>.",
    );
    expect(bracketUrls("See https://example.com/a, then https://example.com/b!")).toBe(
      "See <https://example.com/a>, then <https://example.com/b>!",
    );
    expect(bracketUrls("Already <https://example.com/a>.")).toBe("Already <https://example.com/a>.");
    expect(bracketUrls("Mail mailto:alex@example.com.")).toBe("Mail <mailto:alex@example.com>.");
    // An address's own parentheses are part of it.
    expect(bracketUrls("The film https://en.example.org/wiki/Heat_(1995).")).toBe(
      "The film <https://en.example.org/wiki/Heat_(1995)>.",
    );
    expect(trimUrl("https://example.com/a?b=c).")).toEqual({ url: "https://example.com/a?b=c", rest: ")." });
  });

  it("keeps an address that is alone on its line bare, and one at the end of a sentence on its own is bracketed", () => {
    expect(bracketUrls("https://example.com/updates")).toBe("https://example.com/updates");
    expect(bracketUrls("> https://example.com/q")).toBe("> https://example.com/q");
    expect(bracketUrls("https://example.com/updates.")).toBe("<https://example.com/updates>.");
  });

  it("never breaks an address: one too long for the line gets a line of its own, other long words are cut", () => {
    const lines = wrapLine(`The long one is ${LONG_URL} and then more words follow it here.`);
    expect(lines).toContain(`<${LONG_URL}>`);
    expect(overlong(lines.join("\n"))).toEqual([]);
    const word = wrapLine("x".repeat(200));
    expect(word.every((line) => line.length <= 72)).toBe(true);
    expect(word.join("")).toBe("x".repeat(200));
  });

  it("keeps blank lines and the signature separator with its trailing space", () => {
    const text = wrapText(`Para one.\n\nPara two.\n-- \nFooter line with ${LONG_URL}`);
    expect(text.split("\n")).toEqual(["Para one.", "", "Para two.", "-- ", "Footer line with", `<${LONG_URL}>`]);
  });

  it("leaves no line over 78 characters in a mixed text, except an unbreakable address", () => {
    const text = wrapText(
      [
        "A paragraph ".repeat(20),
        `> A quote with a link (https://example.com/${"q".repeat(90)}) inside it, and more words.`,
        `1. An item ${"word ".repeat(30)}`,
        LONG_URL,
        `trailing spaces are dropped   `,
      ].join("\n"),
    );
    expect(overlong(text)).toEqual([]);
    expect(text).not.toMatch(/ +$/m);
  });

  it("makes a title one line whatever its file holds", () => {
    expect(oneLine("Hello\r\nBcc: x@example.org\u2028\u0000 there  ")).toBe("Hello Bcc: x@example.org there");
  });
});
