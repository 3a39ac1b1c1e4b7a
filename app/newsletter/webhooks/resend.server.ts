// Resend signs its webhooks as Standard Webhooks (through Svix): `svix-id`, `svix-timestamp` and `svix-signature`
// headers, an HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the secret's base64 part (after `whsec_`).
import { createHmac, timingSafeEqual } from "node:crypto";
import { standardWebhooksKey } from "./settings.server";
import { addressOf, detailLine, events, isObject, jsonObject, text, timeOf, unreadable } from "./text";
import type { HeaderSource, Parsed, Refusal, RelayEvent } from "./types";

/** How far a signature's timestamp may be from our clock, either way (the spec's and Svix's tolerance). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export function verifyResend(headers: HeaderSource, body: string, secret: string, now: Date): Refusal | null {
  const key = standardWebhooksKey(secret);
  if (!key) return "the secret is not a whsec_ key";
  const id = headers.get("svix-id") ?? headers.get("webhook-id");
  const timestamp = headers.get("svix-timestamp") ?? headers.get("webhook-timestamp");
  const signatures = headers.get("svix-signature") ?? headers.get("webhook-signature");
  if (!id || !timestamp || !signatures) return "no signature headers";
  // The id and timestamp are part of the signed text: a dot in either could move the boundary (the spec's warning).
  if (id.includes(".") || !/^\d{1,12}$/.test(timestamp)) return "malformed signature headers";
  const age = now.getTime() / 1000 - Number(timestamp);
  if (Math.abs(age) > TIMESTAMP_TOLERANCE_SECONDS) return "timestamp outside five minutes";

  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest();
  // Several space-separated `v1,<base64>` entries while a secret is being rotated: any one may match.
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return "signature does not match";
}

/**
 * Resend's email events: `email.bounced` carries `bounce.type` (Permanent, Transient, Undetermined: SES's words, whose
 * infrastructure Resend reports from), `email.complained` a spam report, `email.suppressed` a send Resend refused
 * because the address is on its own suppression list (an earlier hard bounce or complaint).
 */
export function parseResend(body: string, eventId: string, now: Date): Parsed {
  const payload = jsonObject(body);
  if (!payload || typeof payload.type !== "string") return unreadable("not a Resend event");
  const data = isObject(payload.data) ? payload.data : {};
  const at = timeOf(payload.created_at, now);
  const recipients = Array.isArray(data.to) ? data.to : [data.to];
  const make = (kind: RelayEvent["kind"], detail: string): RelayEvent[] =>
    recipients.flatMap((value) => {
      const email = addressOf(value);
      return email ? [{ kind, email, detail, eventId: `resend:${eventId}:${email}`, at }] : [];
    });

  switch (payload.type) {
    case "email.bounced": {
      const bounce = isObject(data.bounce) ? data.bounce : {};
      const type = text(bounce.type) ?? "";
      const detail = detailLine(`Resend ${type || "bounce"}`, text(bounce.subType), text(bounce.message));
      return events(make(type === "Permanent" ? "bounced" : "soft-bounce", detail));
    }
    case "email.complained":
      return events(make("complained", "Resend: marked as spam by the reader"));
    case "email.suppressed": {
      const suppressed = isObject(data.suppressed) ? data.suppressed : {};
      return events(make("bounced", detailLine("Resend suppressed", text(suppressed.type), text(suppressed.message))));
    }
    default:
      // Sent, delivered, delayed (still being tried), opened, clicked, and the account's other events: nothing to do.
      return events([]);
  }
}
