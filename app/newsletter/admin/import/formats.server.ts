/**
 * Which tool wrote an export, told by its header row, and where in a row the address, the sign-up date and the
 * status are. Headers are compared without case, spaces, underscores or hyphens, so `Email Address`,
 * `email_address` and `E-mail address` are one name.
 */
import { cleanField } from "~/newsletter/admin/import/clean-text";
import type { RowStatus } from "~/newsletter/admin/import/status.server";

export type ImportFormat = "substack" | "buttondown" | "mailchimp" | "kit" | "ghost" | "csv" | "plain";

/** The format's name as the report and the consent record write it. */
export const FORMAT_NAMES: Record<ImportFormat, string> = {
  substack: "Substack",
  buttondown: "Buttondown",
  mailchimp: "Mailchimp",
  kit: "Kit (ConvertKit)",
  ghost: "Ghost",
  csv: "a CSV file with an address column",
  plain: "a list of addresses, one a line",
};

export interface StatusColumn {
  index: number;
  /** The header as the file writes it. */
  header: string;
  /** A yes/no column where yes means "no mail" (Substack's email_disabled). */
  inverted: boolean;
}

export interface DetectedFormat {
  format: ImportFormat;
  /** False for a plain list: its first line is already an address. */
  hasHeader: boolean;
  emailIndex: number;
  /** Columns that may hold the original sign-up date, the most telling first. */
  dateIndexes: number[];
  statusColumns: StatusColumn[];
  /** Mailchimp exports each status to its own file; the file's columns say which one this is. */
  fileStatus: RowStatus | null;
}

export const normalHeader = (header: string) =>
  header
    .replace(/^\uFEFF/, "")
    .trim()
    .toLowerCase()
    .replace(/[\s_.-]+/g, "");

const EMAIL_HEADERS = ["email", "emailaddress", "mail", "subscriberemail", "memberemail"];

// The consent time first (Mailchimp's OPTIN_TIME is when the person opted in, CONFIRM_TIME when they clicked the
// confirmation), then the tools' creation dates, then generic names a hand-made file might use.
const DATE_HEADERS = [
  "optintime",
  "confirmtime",
  "createdat",
  "creationdate",
  "subscribedat",
  "subscriptiondate",
  "signupdate",
  "dateadded",
  "joinedat",
  "date",
];

// Substack's active_subscription, expiry, plan and first_payment_at describe a payment, not the mail: a free reader
// has active_subscription "false" (or, in older exports, nothing) and gets every free post. Only email_disabled says
// whether Substack mails the reader (Ghost's own Substack importer reads the file the same way).
const STATUS_HEADERS: { name: string; inverted: boolean }[] = [
  { name: "status", inverted: false },
  { name: "state", inverted: false },
  { name: "subscribertype", inverted: false },
  { name: "subscribedtoemails", inverted: false },
  { name: "subscribed", inverted: false },
  { name: "emaildisabled", inverted: true },
  { name: "unsubscribed", inverted: true },
];

function recognise(names: Set<string>): ImportFormat {
  const has = (name: string) => names.has(name);
  if (has("emailaddress") && ["optintime", "confirmtime", "memberrating", "leid", "euid"].some(has)) {
    return "mailchimp";
  }
  if (has("subscribertype") || (has("creationdate") && has("type"))) return "buttondown";
  // Ghost first: its member exports may carry an email_disabled column too.
  if (has("subscribedtoemails")) return "ghost";
  if (has("activesubscription") || has("emaildisabled")) return "substack";
  if (has("emailaddress") && (has("firstname") || has("status") || has("state"))) return "kit";
  return "csv";
}

function mailchimpFileStatus(names: Set<string>, headers: string[]): RowStatus | null {
  const column = (name: string) => cleanField(headers.find((header) => normalHeader(header) === name) ?? name);
  if (names.has("unsubtime") || names.has("unsubcampaigntitle")) {
    return { kind: "suppressed", reason: "unsubscribed", said: `unsubscribed export (${column("unsubtime")})` };
  }
  if (names.has("cleantime") || names.has("cleancampaigntitle")) {
    return { kind: "suppressed", reason: "bounced", said: `cleaned export (${column("cleantime")})` };
  }
  return null;
}

const looksLikeAddress = (value: string) => value.includes("@");

/**
 * The format of a file from its first record, or a sentence saying why it cannot be read. A first record without
 * an address column but with an address in its only field is a plain list; anything else without one is refused.
 */
export function detectFormat(first: readonly string[]): DetectedFormat | { error: string } {
  const normals = first.map(normalHeader);
  const names = new Set(normals);
  const emailIndex = EMAIL_HEADERS.map((name) => normals.indexOf(name)).find((index) => index >= 0) ?? -1;
  if (emailIndex < 0) {
    if (first.length === 1 && looksLikeAddress(first[0] ?? "")) {
      return { format: "plain", hasHeader: false, emailIndex: 0, dateIndexes: [], statusColumns: [], fileStatus: null };
    }
    return {
      error:
        "No address column: the first row should name one (email, Email Address, email_address, E-mail, …), " +
        "or the file should hold one address a line.",
    };
  }
  const format = recognise(names);
  const dateIndexes = DATE_HEADERS.map((name) => normals.indexOf(name)).filter((index) => index >= 0);
  const statusColumns: StatusColumn[] = STATUS_HEADERS.flatMap(({ name, inverted }) => {
    const index = normals.indexOf(name);
    return index >= 0 ? [{ index, header: cleanField((first[index] ?? name).replace(/^\uFEFF/, "")), inverted }] : [];
  });
  // Buttondown's newer exports call the subscriber type just "type"; elsewhere "type" is a plan, not a status.
  if (format === "buttondown" && !names.has("subscribertype") && names.has("type")) {
    statusColumns.push({ index: normals.indexOf("type"), header: "type", inverted: false });
  }
  const fileStatus = format === "mailchimp" ? mailchimpFileStatus(names, first.slice()) : null;
  return { format, hasHeader: true, emailIndex, dateIndexes, statusColumns, fileStatus };
}
