// What SES says inside an SNS notification: `notificationType` (a topic set on an identity) or `eventType` (a
// configuration set's event destination), then the bounce or complaint with its recipients.
import { addressOf, detailLine, events, isObject, jsonObject, text, timeOf, unreadable } from "./text";
import type { Parsed, RelayEvent } from "./types";

export function parseSesNotification(message: string, messageId: string, now: Date): Parsed {
  const notification = jsonObject(message);
  if (!notification) return unreadable("not an SES notification");
  const type = text(notification.notificationType) ?? text(notification.eventType);
  if (type === "Bounce") return bounceEvents(notification.bounce, messageId, now);
  if (type === "Complaint") return complaintEvents(notification.complaint, messageId, now);
  // Delivery, Send, Reject, Open, Click, DeliveryDelay, Rendering Failure, Subscription, AmazonSnsSubscriptionSucceeded.
  return events([]);
}

function recipients(list: unknown): Record<string, unknown>[] {
  return Array.isArray(list) ? list.filter(isObject) : [];
}

function bounceEvents(bounce: unknown, messageId: string, now: Date): Parsed {
  if (!isObject(bounce)) return unreadable("a bounce without its details");
  const bounceType = text(bounce.bounceType) ?? "";
  // Permanent: the address is gone, or on SES's suppression list. Transient and Undetermined: SES gave up for now.
  const kind: RelayEvent["kind"] = bounceType === "Permanent" ? "bounced" : "soft-bounce";
  const at = timeOf(bounce.timestamp, now);
  const id = text(bounce.feedbackId) ?? messageId;
  return events(
    recipients(bounce.bouncedRecipients).flatMap((recipient) => {
      const email = addressOf(recipient.emailAddress);
      if (!email) return [];
      const detail = detailLine(
        `SES ${bounceType || "bounce"}`,
        text(bounce.bounceSubType),
        text(recipient.diagnosticCode) ?? text(recipient.status),
      );
      return [{ kind, email, detail, eventId: `ses:${id}:${email}`, at }];
    }),
  );
}

function complaintEvents(complaint: unknown, messageId: string, now: Date): Parsed {
  if (!isObject(complaint)) return unreadable("a complaint without its details");
  const feedbackType = text(complaint.complaintFeedbackType);
  // A mailbox provider's "this is not spam" report is the opposite of a complaint.
  if (feedbackType === "not-spam") return events([]);
  const at = timeOf(complaint.timestamp, now);
  const id = text(complaint.feedbackId) ?? messageId;
  const detail = detailLine("SES complaint", feedbackType ?? text(complaint.complaintSubType));
  return events(
    recipients(complaint.complainedRecipients).flatMap((recipient) => {
      const email = addressOf(recipient.emailAddress);
      return email ? [{ kind: "complained" as const, email, detail, eventId: `ses:${id}:${email}`, at }] : [];
    }),
  );
}
