// The text part of every mail, made to read in a terminal or a phone's plain view: lines wrapped at 72 columns (RFC
// 3676's advice, under RFC 5322's 78), a quote's `> ` and a list item's indent kept on every line they wrap onto, and
// web addresses that a client can still pick out and open whole: alone on their line, or in angle brackets (RFC 3986,
// appendix C) with no punctuation glued to them. Pure: text in, text out.

/** Where lines are wrapped. */
export const TEXT_WIDTH = 72;

/** The signature separator (RFC 3676 §4.3): clients recognise it, with its trailing space, and fold what follows. */
export const SIGNATURE_SEPARATOR = "-- ";

// A web address as it stands in running text. What may end it is decided by `trimUrl`.
const URL_IN_TEXT = /<?(?:https?:\/\/|mailto:)[^\s<>]+>?/gi;

// Line breaks of any kind and the other control characters.
// eslint-disable-next-line no-control-regex
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line, spaces collapsed: for a title that becomes one line of a mail, whatever its file holds. */
export function oneLine(value: string): string {
  return value.replace(NOT_ONE_LINE, " ").replace(/\s+/g, " ").trim();
}

/**
 * An address found in text without what only ends the sentence around it: trailing `.,;:!?'"` and a closing
 * parenthesis that has no opening one inside the address (a Wikipedia-style `…_(film)` keeps its own).
 */
export function trimUrl(candidate: string): { url: string; rest: string } {
  let url = candidate;
  for (;;) {
    const last = url.at(-1) ?? "";
    if (/[.,;:!?'"]/.test(last)) url = url.slice(0, -1);
    else if (last === ")" && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1);
    else break;
  }
  return { url, rest: candidate.slice(url.length) };
}

/**
 * Every address in `line` that is not the whole line is put in angle brackets; `(address)` loses its parentheses,
 * so `see the page (https://x.example/a).` reads `see the page <https://x.example/a>.`. An address alone on its line
 * (after a quote's or list item's prefix) stays as it is.
 */
export function bracketUrls(line: string): string {
  const { prefix, rest } = splitPrefix(line);
  if (/^(?:https?:\/\/|mailto:)\S+$/i.test(rest) && trimUrl(rest).rest === "") return line;
  const body = rest.replace(URL_IN_TEXT, (match) => {
    if (match.startsWith("<") && match.endsWith(">")) return match;
    const opened = match.startsWith("<") ? match.slice(1) : match;
    const { url, rest: after } = trimUrl(opened.endsWith(">") ? opened.slice(0, -1) : opened);
    return `<${url}>${after}`;
  });
  return prefix + body.replace(/\(<([^<>\s]+)>\)/g, "<$1>");
}

/** A line's quote markers and list item or indent: what its wrapped continuation lines repeat (the marker as spaces). */
export function splitPrefix(line: string): { prefix: string; continuation: string; rest: string } {
  const quote = /^(?:> ?)*/.exec(line)?.[0] ?? "";
  const afterQuote = line.slice(quote.length);
  const item = /^ *(?:[-*+] |\d{1,9}[.)] )?/.exec(afterQuote)?.[0] ?? "";
  // A prefix is repeated as it is; one as wide as the line would leave nothing to wrap into.
  if (quote.length + item.length > TEXT_WIDTH / 2) return { prefix: "", continuation: "", rest: line };
  return {
    prefix: quote + item,
    continuation: quote + " ".repeat(item.length),
    rest: afterQuote.slice(item.length),
  };
}

const isUrlWord = (word: string) => /^<?(?:https?:\/\/|mailto:)/i.test(word);

/** Words longer than `room` are cut into pieces that fit, except web addresses, which must stay whole to work. */
function pieces(word: string, room: number): string[] {
  if (word.length <= room || isUrlWord(word)) return [word];
  const out: string[] = [];
  for (let at = 0; at < word.length; at += room) out.push(word.slice(at, at + room));
  return out;
}

/** One line wrapped to `width`: a line that fits is kept exactly as it is (code keeps its spacing). */
export function wrapLine(line: string, width = TEXT_WIDTH): string[] {
  const bracketed = bracketUrls(line.trimEnd() === SIGNATURE_SEPARATOR.trimEnd() ? line : line.trimEnd());
  if (bracketed.length <= width) return [bracketed];
  const { prefix, continuation, rest } = splitPrefix(bracketed);
  const room = Math.max(1, width - continuation.length);
  const lines: string[] = [];
  let current = "";
  let lead = prefix;
  const flush = () => {
    lines.push(lead + current);
    lead = continuation;
    current = "";
  };
  for (const word of rest.split(/ +/).flatMap((part) => pieces(part, room))) {
    if (word === "") continue;
    if (current === "") current = word;
    else if (lead.length + current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      flush();
      current = word;
    }
  }
  if (current !== "" || lines.length === 0) flush();
  return lines;
}

/** A whole text wrapped line by line; blank lines and the signature separator are kept as they are. */
export function wrapText(text: string, width = TEXT_WIDTH): string {
  return text
    .split(/\r?\n/)
    .flatMap((line) => (line === SIGNATURE_SEPARATOR ? [line] : wrapLine(line, width)))
    .join("\n");
}
