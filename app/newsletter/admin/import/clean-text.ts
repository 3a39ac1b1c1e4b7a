/**
 * A cell or header of an export as the list may keep it (in a consent record, a suppression's words) and the owner's
 * terminal may print it: control characters (a CR, an escape sequence) become spaces, runs of spaces one, and the
 * text is bounded. A status is a word or two; anything longer is cut and marked.
 */
export const MAX_KEPT_CHARS = 100;

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

/** Whether the text is kept as it is, trimmed: no control character, no run of spaces, short (checked without copying). */
function plainAlready(value: string, max: number): boolean {
  if (value.length > max) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (isControl(code) || (code === 0x20 && value.charCodeAt(i + 1) === 0x20) || code === 0xa0) return false;
  }
  return true;
}

export function cleanField(value: string, max = MAX_KEPT_CHARS): string {
  // Nearly every cell of an export: no copy, so a long file makes no garbage here.
  if (plainAlready(value, max)) return value.trim();
  const plain = Array.from(value, (char) => (isControl(char.codePointAt(0)!) ? " " : char)).join("");
  const line = plain.replace(/\s+/g, " ").trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
}
