import type { SubscriberRow } from "~/newsletter/list/subscriber-list.server";
import { unsubscribeLink } from "~/newsletter/list/unsubscribe-token";

/** A row to export: a reader without a state is a confirmed one (from before confirmation). */
type ExportRow = Omit<SubscriberRow, "state" | "confirmedAt"> & Partial<Pick<SubscriberRow, "state" | "confirmedAt">>;

const CSV_HEADER = [
  "email",
  "subscribed_at",
  "unsubscribe_link",
  "state",
  "confirmed_at",
  "suppressed",
  "suppressed_at",
  "suppressed_because",
] as const;

/**
 * What makes a spreadsheet read a cell as a formula (= + - @, tab, carriage return), and the apostrophe that marks
 * text: a value starting with any of them gets one more apostrophe in front.
 */
const NEEDS_MARK = /^[=+\-@\t\r']/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. A value a spreadsheet would run as
 * a formula gets a leading apostrophe (an address is text, never a formula), and so does one that already starts with
 * an apostrophe, so that two addresses never become one field: dropping one leading apostrophe gives the value back.
 */
export function csvField(value: string): string {
  const safe = NEEDS_MARK.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The value a field of the export stands for, once a CSV reader has unquoted it: the inverse of csvField. */
export const csvValue = (field: string): string => (field.startsWith("'") ? field.slice(1) : field);

/** The whole export, header first, CRLF line ends as RFC 4180 has them. */
export function subscribersCsv(rows: ExportRow[], siteUrl: string): string {
  const lines = [CSV_HEADER.join(",")];
  for (const row of rows) {
    const fields = [row.email, row.createdAt, unsubscribeLink(siteUrl, row.unsubscribeToken), row.state ?? "confirmed"];
    const { reason = "", at = "", detail = "" } = row.suppression ?? {};
    const suppression = [reason, at, detail];
    lines.push([...fields, row.confirmedAt ?? "", ...suppression].map(csvField).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}
