// Postmark authenticates its webhooks with HTTP Basic credentials the owner sets on the webhook (or in its URL,
// https://user:password@host/webhooks/postmark); the body is one record, told apart by `RecordType`.
import { checkBasicAuth } from "./credentials.server";
import { addressOf, detailLine, events, jsonObject, text, timeOf, unreadable } from "./text";
import type { HeaderSource, Parsed, Refusal, RelayEvent } from "./types";

export const verifyPostmark = (headers: HeaderSource, auth: string): Refusal | null => checkBasicAuth(headers, auth);

// Postmark's bounce types (its Bounce API's list) by what they mean for the reader. Types absent from both lists
// (auto-responders, subscribe or unsubscribe requests, challenge mails, virus notices, "Unknown") are not refusals.
const PERMANENT = new Set(["HardBounce", "BadEmailAddress"]);
const TEMPORARY = new Set(["SoftBounce", "Transient", "DnsError"]);

// Why Postmark stopped sending to an address on a stream (its Subscription Change webhook). ManualSuppression is the
// reader's own unsubscribe through Postmark's link on a Broadcast stream, or the owner's in Postmark's UI.
const SUPPRESSION_KINDS: Record<string, RelayEvent["kind"]> = {
  HardBounce: "bounced",
  SpamComplaint: "complained",
  ManualSuppression: "unsubscribed",
};

/**
 * A Subscription Change: `SuppressSending` true is Postmark's suppression (a Broadcast stream's spam complaint arrives
 * only this way); false is a reactivation at Postmark, which lifts nothing here (the owner lifts a suppression).
 */
function subscriptionChange(record: Record<string, unknown>, now: Date): Parsed {
  const email = addressOf(record.Recipient);
  const reason = text(record.SuppressionReason) ?? "";
  const changedAt = text(record.ChangedAt) ?? "";
  if (record.SuppressSending !== true) {
    return events([], "a reactivation at Postmark, which changes nothing here");
  }
  const kind = SUPPRESSION_KINDS[reason];
  if (!email || !kind) return events([], `a suppression Postmark calls ${JSON.stringify(reason)}: nothing to do`);
  const detail = detailLine(`Postmark ${reason}`, text(record.Origin) && `origin ${text(record.Origin)}`);
  // Postmark's own time of the change: a retried delivery has the same id.
  const eventId = `postmark:SubscriptionChange:${email.toLowerCase()}:${changedAt}`;
  return events([{ kind, email, detail, eventId, at: timeOf(changedAt, now) }]);
}

export function parsePostmark(body: string, now: Date): Parsed {
  const record = jsonObject(body);
  if (!record) return unreadable("not a Postmark record");
  // Postmark's "check your webhook" request carries no record: answered 200, so the dashboard says it works.
  if (typeof record.RecordType !== "string") return events([], "a request without a record (Postmark's test)");
  if (record.RecordType === "SubscriptionChange") return subscriptionChange(record, now);
  const email = addressOf(record.Email);
  const type = text(record.Type) ?? "";
  const id =
    typeof record.ID === "number" || typeof record.ID === "string" ? String(record.ID) : text(record.MessageID);
  const at = timeOf(record.BouncedAt, now);
  const make = (kind: RelayEvent["kind"], detail: string): Parsed =>
    email && id ? events([{ kind, email, detail, eventId: `postmark:${record.RecordType}:${id}`, at }]) : events([]);

  if (record.RecordType === "SpamComplaint" || (record.RecordType === "Bounce" && type === "SpamComplaint")) {
    return make("complained", detailLine("Postmark SpamComplaint", text(record.Description)));
  }
  if (record.RecordType !== "Bounce") return events([]);
  const detail = detailLine(`Postmark ${type}`, text(record.Details) ?? text(record.Description));
  if (PERMANENT.has(type)) return make("bounced", detail);
  if (TEMPORARY.has(type)) return make("soft-bounce", detail);
  return events([]);
}
