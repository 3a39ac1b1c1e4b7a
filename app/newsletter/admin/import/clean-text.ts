/**
 * A cell or header of an export as the list may keep it (in a consent record, a suppression's words) and the owner's
 * terminal may print it: control characters (a CR, an escape sequence) become spaces, runs of spaces one, and the
 * text is bounded. A status is a word or two; anything longer is cut and marked.
 */
export const MAX_KEPT_CHARS = 100;

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

export function cleanField(value: string, max = MAX_KEPT_CHARS): string {
  const plain = Array.from(value, (char) => (isControl(char.codePointAt(0)!) ? " " : char)).join("");
  const line = plain.replace(/\s+/g, " ").trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
}
