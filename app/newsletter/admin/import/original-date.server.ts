/**
 * The original sign-up time of an imported reader, as an ISO 8601 instant. The tools write ISO 8601 with a zone
 * (Substack, Ghost, Buttondown, Kit) or `YYYY-MM-DD HH:MM:SS` in UTC (Mailchimp's OPTIN_TIME and CONFIRM_TIME), some
 * with a trailing "UTC". Only those shapes are read: `Date.parse` would also take "03/04/2021" and guess the day and
 * month, and a consent record with a guessed date is worse than one that says the date is unknown.
 */
const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** The earliest sign-up an export can hold: no mailing tool kept readers before 1970. */
const EARLIEST = Date.UTC(1970, 0, 1);
/** A day's slack past now, for the clocks of the tool that wrote the file and of this machine. */
const LATEST_AHEAD_MS = 24 * 60 * 60 * 1000;

/**
 * Why a cell that has the shape of a date cannot be a sign-up date (a zone past ±14:00, a time outside 1970 to
 * today), or null: an empty cell or one of no date shape at all is no problem, only no date.
 */
export function originalDateProblem(text: string, now = new Date()): string | null {
  const match = SHAPE.exec(text.trim());
  if (!match) return null;
  const zone = match[8] ?? "Z";
  if (!/^(Z|UTC|GMT)$/i.test(zone)) {
    const digits = zone.slice(1).replace(":", "");
    if (Number(digits.slice(0, 2)) > 14 || Number(digits.slice(2) || "0") > 59) {
      return `sign-up date ${JSON.stringify(text.trim())} has no real time zone`;
    }
  }
  const parsed = parseOriginalDate(text, now);
  if (parsed === null && isInstant(match)) {
    return `sign-up date ${JSON.stringify(text.trim())} is outside 1970 to today`;
  }
  return null;
}

function isInstant(match: RegExpExecArray): boolean {
  const [y, mo, d] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, d));
  return check.getUTCFullYear() === y && check.getUTCMonth() === mo - 1 && check.getUTCDate() === d;
}

/** The instant `text` names, or null when it is empty, not one of the shapes above, not a real date, or not sane. */
export function parseOriginalDate(text: string, now = new Date()): string | null {
  const match = SHAPE.exec(text.trim());
  if (!match) return null;
  const [, year = "", month = "", day = "", hour = "00", minute = "00", second = "00", fraction = "", zone = "Z"] =
    match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Math.floor(Number(`0.${fraction || "0"}`) * 1000);
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, millis);
  const check = new Date(utc);
  // Date.UTC rolls 31 February over into March; a date that does not round-trip was not a date.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  const instant = utc - zoneOffsetMinutes(zone) * 60_000;
  if (!Number.isFinite(instant) || instant < EARLIEST || instant > now.getTime() + LATEST_AHEAD_MS) return null;
  return new Date(instant).toISOString();
}

function zoneOffsetMinutes(zone: string): number {
  if (/^(Z|UTC|GMT)$/i.test(zone)) return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const [hours, minutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || "0")];
  return hours > 14 || minutes > 59 ? Number.NaN : sign * (hours * 60 + minutes);
}

/**
 * A row's sign-up date from the first of `indexes` that holds one, and the first cell whose date no sign-up can have
 * (the row's refusal), in one pass over the cells.
 */
export function datesOf(
  fields: readonly string[],
  indexes: readonly number[],
  now = new Date(),
): { date: string | null; problem: string | null } {
  let date: string | null = null;
  for (const index of indexes) {
    const cell = fields[index] ?? "";
    if (cell === "") continue;
    const parsed = parseOriginalDate(cell, now);
    if (parsed) {
      date ??= parsed;
      continue;
    }
    const problem = originalDateProblem(cell, now);
    if (problem) return { date, problem };
  }
  return { date, problem: null };
}
