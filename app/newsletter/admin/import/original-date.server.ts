/**
 * The original sign-up time of an imported reader, as an ISO 8601 instant. The tools write ISO 8601 with a zone
 * (Substack, Ghost, Buttondown, Kit) or `YYYY-MM-DD HH:MM:SS` in UTC (Mailchimp's OPTIN_TIME and CONFIRM_TIME), some
 * with a trailing "UTC". Only those shapes are read: `Date.parse` would also take "03/04/2021" and guess the day and
 * month, and a consent record with a guessed date is worse than one that says the date is unknown.
 */
const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** The instant `text` names, or null when it is empty or not one of the shapes above (or not a real date). */
export function parseOriginalDate(text: string): string | null {
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
  return new Date(utc - zoneOffsetMinutes(zone) * 60_000).toISOString();
}

function zoneOffsetMinutes(zone: string): number {
  if (/^(Z|UTC|GMT)$/i.test(zone)) return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0"));
}

/** The first column of `indexes` in `fields` that holds a readable date. */
export function originalDateOf(fields: readonly string[], indexes: readonly number[]): string | null {
  for (const index of indexes) {
    const parsed = parseOriginalDate(fields[index] ?? "");
    if (parsed) return parsed;
  }
  return null;
}
