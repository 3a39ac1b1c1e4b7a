/**
 * Environment variables that look like ours but are not: a near spelling of a known name (`SMTP_ULR`), or an unknown
 * name with one of our prefixes (`SMTP_PASSWORD`). Such a variable is read by nobody, so what it was meant to set
 * silently keeps its default: the owner gets a warning naming the variable we probably meant. Pure: names in, lines out.
 */

/** Prefixes that only our variables use: any other name starting with one is a mistake. */
export const ENV_PREFIXES = [
  "SMTP_",
  "MAIL_",
  "SUPABASE_",
  "LATEST_POST_",
  "BACKUP_",
  "DKIM_",
  "RESEND_",
  "POSTMARK_",
  "MAILGUN_",
  "BREVO_",
  "SES_",
] as const;

export interface Lookalike {
  /** The variable as set. */
  name: string;
  /** The known name it most likely means. */
  meant: string;
}

/**
 * The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbours each cost
 * one, so `SMTP_ULR` is one step from `SMTP_URL`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]![j]!;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      rows[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * How far a name may be from a known one and still count as its misspelling. Two steps for names of 8 characters
 * or more; one for shorter ones and none under 5, where two steps reach common system names (`HOME` is two from
 * `HOST`). A swap of two neighbours always counts (`PROT`).
 */
function isNear(name: string, known: string): boolean {
  const distance = editDistance(name, known);
  if (distance === 0) return true;
  if (distance === 1 && isSwap(name, known)) return true;
  const allowed = known.length >= 8 ? 2 : known.length >= 5 ? 1 : 0;
  return distance <= allowed;
}

function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const differ = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
  return differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]!];
}

/** The known name nearest to `name` (compared in capitals), first in `known` on a tie. */
function nearest(name: string, known: readonly string[]): { meant: string; distance: number } | null {
  let best: { meant: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { meant: candidate, distance };
  }
  return best;
}

/** Every name in `names` that looks like one of `known` without being it, with the name it most likely means. */
export function lookalikeVariables(names: Iterable<string>, known: readonly string[]): Lookalike[] {
  const knownSet = new Set(known);
  const found: Lookalike[] = [];
  for (const name of names) {
    if (knownSet.has(name)) continue;
    const upper = name.toUpperCase();
    const near = known.filter((candidate) => isNear(upper, candidate));
    if (near.length > 0) {
      found.push({ name, meant: nearest(upper, near)!.meant });
      continue;
    }
    const prefix = ENV_PREFIXES.find((start) => upper.startsWith(start));
    if (!prefix) continue;
    const family = known.filter((candidate) => candidate.startsWith(prefix));
    const guess = nearest(upper, family.length > 0 ? family : known);
    if (guess) found.push({ name, meant: guess.meant });
  }
  return found;
}

/** The warning for one lookalike: its name and the one we read, never its value (it may be a secret). */
export const lookalikeWarning = ({ name, meant }: Lookalike): string =>
  `${name} is not a variable we read; did you mean ${meant}?`;

/** The settings mail depends on: a misspelling of one leaves mail off or sending as someone else, and nobody notices. */
const MAIL_SETTING = /^(SMTP|MAIL|DKIM)_/;

/** The lookalikes that mean a mail setting: the production server refuses to start with one. */
export const mailLookalikes = (found: readonly Lookalike[]): Lookalike[] =>
  found.filter(({ meant }) => MAIL_SETTING.test(meant));

/** The start-up's refusal for one, in the shape of a bad value's line: both names, never a value. */
export const mailLookalikeError = ({ name, meant }: Lookalike): string =>
  `Invalid environment: ${name} is set, but the mail setting we read is ${meant}: rename it (or remove it).`;
