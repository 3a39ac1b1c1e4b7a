// Brevo authenticates its transactional webhooks with HTTP Basic credentials put in the webhook's URL
// (https://user:password@host/webhooks/brevo). The body is one event, or an array of them when batched.
import { checkBasicAuth } from "./credentials.server";
import { addressOf, detailLine, events, isObject, jsonValue, text, timeOf, unreadable } from "./text";
import type { HeaderSource, Parsed, Refusal, RelayEvent } from "./types";

export const verifyBrevo = (headers: HeaderSource, auth: string): Refusal | null => checkBasicAuth(headers, auth);

// Brevo's event names. `blocked`: Brevo refused to send because the address is on its own block list (an earlier hard
// bounce, complaint or unsubscribe); `invalid_email`: the address cannot exist. `deferred` is still being tried.
const KINDS: Record<string, RelayEvent["kind"]> = {
  hard_bounce: "bounced",
  invalid_email: "bounced",
  blocked: "bounced",
  soft_bounce: "soft-bounce",
  spam: "complained",
  complaint: "complained",
};

export function parseBrevo(body: string, now: Date): Parsed {
  const value = jsonValue(body);
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((item) => isObject(item) && typeof item.event === "string")) {
    return unreadable("not a Brevo event");
  }
  return events(
    list.flatMap((item) => {
      const record = item as Record<string, unknown>;
      const name = record.event as string;
      const kind = KINDS[name];
      const email = addressOf(record.email);
      if (!kind || !email) return [];
      const at = timeOf(record.ts_event ?? record.date, now);
      const messageId = text(record["message-id"]) ?? "";
      const detail = detailLine(`Brevo ${name}`, text(record.reason));
      // Brevo's own time of the event, never ours: a retried delivery must have the same id.
      const when = String(record.ts_event ?? record.ts_epoch ?? record.date ?? "");
      return [{ kind, email, detail, eventId: `brevo:${name}:${messageId}:${email}:${when}`, at }];
    }),
  );
}
