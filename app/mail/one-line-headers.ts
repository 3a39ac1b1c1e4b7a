// Header fields a receiver needs on one line. Nodemailer folds any value past 76 characters, which is legal, but a
// folded List-Unsubscribe breaks DKIM verification after some relays re-sign or re-fold it (nodemailer #1654,
// #1694) and Gmail then shows no unsubscribe button; RFC 8058 wants both fields signed. So these go out as
// Nodemailer "prepared" values: written as they are, never folded or encoded. Pure, unit tested.

export interface PreparedValue {
  prepared: true;
  value: string;
}

export type HeaderValue = string | PreparedValue;

/** The fields written unfolded (compared case-insensitively). */
export const ONE_LINE_FIELDS = ["List-Unsubscribe", "List-Unsubscribe-Post"];

// RFC 5322's line limit is 998 characters, the field name and ": " included.
const MAX_LINE = 998;

/**
 * A prepared value when it may be written as it is (printable ASCII, one line, within the line limit), otherwise the
 * plain string, which Nodemailer then folds and encodes: a value that cannot be one line still goes out legal.
 */
export function oneLine(name: string, value: string): HeaderValue {
  const fits = /^[\x20-\x7e]+$/.test(value) && name.length + 2 + value.length <= MAX_LINE;
  return fits ? { prepared: true, value } : value;
}

/** The same headers with the ONE_LINE_FIELDS prepared. */
export function withOneLineFields(headers: Record<string, HeaderValue>): Record<string, HeaderValue> {
  const wanted = new Set(ONE_LINE_FIELDS.map((field) => field.toLowerCase()));
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      typeof value === "string" && wanted.has(name.toLowerCase()) ? oneLine(name, value) : value,
    ]),
  );
}
