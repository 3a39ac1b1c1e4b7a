// The check's words: one block per finding, its fix under it, and a last line that says whether anything must be
// fixed before the first send. Pure, so the exact text is unit tested.
import type { Finding, Status } from "~/mail/domain-check/assess";

const MARK: Record<Status, string> = { ok: "[ok]  ", note: "[note]", fix: "[fix] " };

export interface ReportHead {
  from: string;
  domain: string;
  /** `smtp://host:port (addresses)` or what stands instead of a relay; never the URL's user or password. */
  relay: string;
}

// Control characters (escape sequences that recolour or rewrite the terminal, line breaks) and the invisible marks
// that reorder text: DNS answers and a relay's words are outside text, printed only as escapes.
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/gu;

/** `text` with every control or invisible character written as an escape (`\x1b`, `\u202e`). */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });

export function renderReport(head: ReportHead, findings: Finding[]): string {
  const lines = [`Checking ${head.domain} for mail from ${head.from}`, `Relay: ${head.relay}`, ""];
  for (const finding of findings) {
    lines.push(`${MARK[finding.status]} ${finding.topic}: ${finding.says}`);
    if (finding.fix && finding.status !== "ok") lines.push(`       Fix: ${finding.fix}`);
  }
  lines.push("", verdict(findings), "");
  return lines.map(printable).join("\n");
}

export function verdict(findings: Finding[]): string {
  const fixes = findings.filter((finding) => finding.status === "fix").length;
  const notes = findings.filter((finding) => finding.status === "note").length;
  if (fixes === 0 && notes === 0)
    return "All is well: receivers can authenticate these mails. Send a --test copy to yourself next.";
  if (fixes === 0)
    return `Nothing blocks the first send; ${notes === 1 ? "one note is" : `${notes} notes are`} worth a look.`;
  return `${fixes === 1 ? "One thing" : `${fixes} things`} to fix before the first send: receivers may refuse or bin these mails until then.`;
}

/** 0 when nothing must be fixed, 1 otherwise: a script can gate the first send on it. */
export const exitCodeOf = (findings: Finding[]): number =>
  findings.some((finding) => finding.status === "fix") ? 1 : 0;
