/**
 * Mastodon's status `content` is HTML. The card shows text (React escapes it), so the markup is turned into plain
 * text here: line breaks and paragraphs become line breaks, every tag goes, and entities are decoded exactly once
 * (a post reading "&amp;lt;" shows "&lt;", never "<").
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

function fromCodePoint(code: number, original: string): string {
  // Nothing that is not a character: no NUL, no lone surrogate, nothing past U+10FFFF.
  if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return original;
  return String.fromCodePoint(code);
}

/** One pass over the text, so a decoded "&" never starts another entity. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (entity, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return fromCodePoint(parseInt(name.slice(2), 16), entity);
    if (name.startsWith("#")) return fromCodePoint(parseInt(name.slice(1), 10), entity);
    return NAMED_ENTITIES[name] ?? entity;
  });
}

export function htmlToText(html: string): string {
  const withBreaks = html
    // What an element like these holds is not part of the post's text.
    .replace(/<(script|style|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<br\b[^>]*>/gi, "\n")
    .replace(/<\/p\s*>\s*<p\b[^>]*>/gi, "\n\n")
    .replace(/<\/?(p|div|li|blockquote|h[1-6])\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    // A "<" with no closing ">" is left from broken markup; it goes too, the text stays.
    .replace(/<[a-zA-Z/!][^\n]*$/g, "");
  return decodeHtmlEntities(withBreaks)
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
