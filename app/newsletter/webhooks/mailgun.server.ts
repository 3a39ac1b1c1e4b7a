// Mailgun signs each webhook inside its body: `signature.{timestamp,token,signature}`, the signature being the hex
// HMAC-SHA256 of timestamp followed by token, keyed with the account's webhook signing key. The event is `event-data`.
import { createHmac, timingSafeEqual } from "node:crypto";
import { TIMESTAMP_TOLERANCE_SECONDS } from "./resend.server";
import { addressOf, detailLine, events, isObject, jsonObject, text, timeOf, unreadable } from "./text";
import type { Parsed, Refusal, RelayEvent } from "./types";

/**
 * The tokens of the signatures taken in the last five minutes. Mailgun's signature covers its timestamp and token, not
 * the event: a signature seen once (on the wire, in a log) could be put on another event while it is fresh. Each token
 * is taken once, so such a copy is refused unless it arrives before the original (Mailgun's scheme allows no better).
 */
export function createTokenMemory(capacity = 10_000) {
  const seen = new Map<string, number>();
  return {
    /** Whether `token` is new; remembers it until it is too old to be signed fresh anyway. */
    firstUse(token: string, now: Date): boolean {
      const at = now.getTime();
      for (const [old, time] of seen) {
        if (at - time <= 2 * TIMESTAMP_TOLERANCE_SECONDS * 1000 && seen.size < capacity) break;
        seen.delete(old);
      }
      if (seen.has(token)) return false;
      seen.set(token, at);
      return true;
    },
  };
}

export type TokenMemory = ReturnType<typeof createTokenMemory>;

/** Checks the signature in a Mailgun body; `null` when it is Mailgun's. An unreadable body has no signature. */
export function verifyMailgun(body: string, signingKey: string, now: Date, tokens?: TokenMemory): Refusal | null {
  const payload = jsonObject(body);
  const signature = payload && isObject(payload.signature) ? payload.signature : null;
  if (!signature) return "no signature";
  const timestamp = signature.timestamp;
  const token = text(signature.token);
  const given = text(signature.signature);
  if ((typeof timestamp !== "string" && typeof timestamp !== "number") || !token || !given) return "no signature";
  if (!/^\d{1,12}$/.test(String(timestamp))) return "malformed timestamp";
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
    return "timestamp outside five minutes";
  }
  if (!/^[0-9a-f]{64}$/i.test(given)) return "signature does not match";
  const expected = createHmac("sha256", signingKey).update(`${timestamp}${token}`, "utf8").digest();
  if (!timingSafeEqual(Buffer.from(given, "hex"), expected)) return "signature does not match";
  return !tokens || tokens.firstUse(token, now) ? null : "signature already used";
}

/**
 * `failed` with severity `permanent` is a hard bounce (reason `bounce`, or `suppress-bounce` when Mailgun already
 * knew it); `complained` a spam report. A `temporary` failure is one attempt Mailgun will repeat: only the last one,
 * reason `old` (Mailgun gave up), counts as a soft bounce, or one slow mailbox would count several times per mail.
 */
export function parseMailgun(body: string, now: Date): Parsed {
  const payload = jsonObject(body);
  const data = payload && isObject(payload["event-data"]) ? payload["event-data"] : null;
  if (!data || typeof data.event !== "string") return unreadable("not a Mailgun event");
  const email = addressOf(data.recipient);
  const signature = isObject(payload?.signature) ? payload.signature : {};
  // Mailgun's own event id is unique within a day only; the signature's token is fresh for each delivery.
  const id = text(data.id) ?? text(signature.token) ?? "";
  const at = timeOf(data.timestamp, now);
  const status = isObject(data["delivery-status"]) ? data["delivery-status"] : {};
  const reason = text(data.reason);
  const words = detailLine(
    status.code === undefined ? undefined : String(status.code),
    text(status.message) || text(status.description),
  );
  const make = (kind: RelayEvent["kind"], detail: string): Parsed =>
    email ? events([{ kind, email, detail, eventId: `mailgun:${data.event}:${id}:${email}`, at }]) : events([]);

  if (data.event === "complained") return make("complained", "Mailgun complained: marked as spam by the reader");
  if (data.event !== "failed") return events([]);
  if (reason === "old") return make("soft-bounce", detailLine("Mailgun failed (gave up)", words));
  if (data.severity === "permanent") {
    if (reason === "suppress-complaint") return make("complained", detailLine("Mailgun suppress-complaint", words));
    if (reason === "suppress-unsubscribe") return events([]);
    return make("bounced", detailLine(`Mailgun failed (${reason ?? "permanent"})`, words));
  }
  return events([]);
}
