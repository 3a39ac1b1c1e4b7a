import type { SubscriberRow } from "~/newsletter/stores/sqlite.server";

export const CSV_HEADER = ["email", "subscribed_at", "unsubscribe_link"] as const;

/** The one-click unsubscribe link of a subscriber, on the site's own address. */
export function unsubscribeLink(siteUrl: string, token: string): string {
  const url = new URL("/unsubscribe", siteUrl);
  url.searchParams.set("token", token);
  return url.toString();
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. A value that a spreadsheet would
 * run as a formula (starting with = + - @) gets a leading apostrophe: an address is text, never a formula.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The whole export, header first, CRLF line ends as RFC 4180 has them. */
export function subscribersCsv(rows: SubscriberRow[], siteUrl: string): string {
  const lines = [CSV_HEADER.join(",")];
  for (const row of rows) {
    lines.push([row.email, row.createdAt, unsubscribeLink(siteUrl, row.unsubscribeToken)].map(csvField).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}
