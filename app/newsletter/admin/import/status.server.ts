/**
 * What a status cell of an export means for the list. Every tool words it differently (Buttondown's subscriber_type,
 * Kit's status, Ghost's subscribed_to_emails, Substack's email_disabled, Mailchimp's file of
 * unsubscribed or cleaned members), so the words are mapped here once.
 *
 * An address whose tool says it left, bounced or complained comes in suppressed: it is never mailed, and being on the
 * list, a later import leaves it as it is. A status the import does not know, or one that says the reader never
 * confirmed, is not imported at all and is named in the report: importing them as confirmed would be a lie, and
 * suppressing them would keep a person who never left from signing up.
 */

/** Why an imported address is never mailed. "unsubscribed": the reader left the list at the other tool. */
export type ImportSuppressionReason = "bounced" | "complained" | "unsubscribed";

export type RowStatus =
  | { kind: "active" }
  /** `said` is the file's own words, kept for the record (e.g. `subscriber_type "unsubscribed"`). */
  | { kind: "suppressed"; reason: ImportSuppressionReason; said: string }
  | { kind: "refused"; reason: string };

const normal = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");

const ACTIVE = new Set(
  [
    "", // an empty cell says nothing against the reader (Ghost leaves subscribed_to_emails empty for the default)
    "active",
    "subscribed",
    "confirmed",
    "true",
    "yes",
    "1",
    // Buttondown's subscriber types of readers who get the newsletter, paid or not
    "regular",
    "premium",
    "trialed",
    "trialing",
    "unpaid",
    "gifted",
    "churning",
    "churned",
    "pastdue",
    "paused",
    // Ghost's and Substack's plans: all of them receive the free posts
    "free",
    "paid",
    "comped",
    "complimentary",
  ].map(normal),
);

const SUPPRESSED = new Map<string, ImportSuppressionReason>([
  ["unsubscribed", "unsubscribed"],
  ["cancelled", "unsubscribed"], // Kit's word for a reader who unsubscribed
  ["canceled", "unsubscribed"],
  ["false", "unsubscribed"],
  ["no", "unsubscribed"],
  ["0", "unsubscribed"],
  ["removed", "unsubscribed"], // Buttondown: removed by the newsletter's owner
  ["optedout", "unsubscribed"],
  ["cleaned", "bounced"], // Mailchimp's word for an address that bounced for good
  ["bounced", "bounced"],
  ["hardbounce", "bounced"],
  ["undeliverable", "bounced"],
  ["complained", "complained"],
  ["spamcomplaint", "complained"],
]);

// Buttondown's "unactivated" and Kit's "inactive" are both a reader who never pressed the double opt-in link (Kit's
// help names them "Unconfirmed"; its API and exports call the same state "inactive").
const UNCONFIRMED = new Set([
  "unactivated",
  "inactive",
  "unconfirmed",
  "pending",
  "notconfirmed",
  "awaitingconfirmation",
]);

const quote = (value: string) => JSON.stringify(value.trim());

/** The meaning of one status cell. `column` is the header as the file writes it, for the report and the record. */
export function classifyStatus(column: string, value: string): RowStatus {
  const word = normal(value);
  if (ACTIVE.has(word)) return { kind: "active" };
  const reason = SUPPRESSED.get(word);
  if (reason) return { kind: "suppressed", reason, said: `${column} ${quote(value)}` };
  if (UNCONFIRMED.has(word)) {
    return { kind: "refused", reason: `never confirmed at the source (${column} ${quote(value)})` };
  }
  return { kind: "refused", reason: `${column} ${quote(value)} is not a status this import knows` };
}

/** A yes/no column where "yes" means the reader gets no mail (Substack's email_disabled). */
export function classifyInverted(column: string, value: string): RowStatus {
  const word = normal(value);
  if (["true", "yes", "1"].includes(word)) {
    return { kind: "suppressed", reason: "unsubscribed", said: `${column} ${quote(value)}` };
  }
  if (["false", "no", "0", ""].includes(word)) return { kind: "active" };
  return { kind: "refused", reason: `${column} ${quote(value)} is neither true nor false` };
}

const WEIGHT: Record<RowStatus["kind"], number> = { active: 0, refused: 1, suppressed: 2 };

/**
 * The status that wins when a row (or an address written on several rows) says more than one thing: a suppression
 * over everything, since mailing a reader who left is the one mistake that cannot be taken back; then a refusal.
 */
export const strongerStatus = (a: RowStatus, b: RowStatus): RowStatus => (WEIGHT[b.kind] > WEIGHT[a.kind] ? b : a);
