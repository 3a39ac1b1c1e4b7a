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

export function parsePostmark(body: string, now: Date): Parsed {
  const record = jsonObject(body);
  if (!record || typeof record.RecordType !== "string") return unreadable("not a Postmark record");
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
