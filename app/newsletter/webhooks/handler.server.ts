// One request to /webhooks/<relay>, from its headers and raw body to an HTTP status and the events it carries. No
// store here: the route hands the events on (sink.server.ts). Verification comes before anything acts on the body.
import { parseBrevo, verifyBrevo } from "./brevo.server";
import { parseMailgun, verifyMailgun, type TokenMemory } from "./mailgun.server";
import { parsePostmark, verifyPostmark } from "./postmark.server";
import { parseResend, verifyResend } from "./resend.server";
import { parseSesNotification } from "./ses.server";
import type { WebhookSettings } from "./settings.server";
import { CERTIFICATE_UNAVAILABLE, confirmationUrl, parseSnsMessage, verifySns, type SnsNetwork } from "./sns.server";
import { jsonObject } from "./text";
import { isRelay, type HeaderSource, type Parsed, type Relay, type RelayEvent } from "./types";

export interface WebhookInput {
  /** The path's last segment: not yet known to be a relay. */
  relay: string;
  headers: HeaderSource;
  body: string;
  settings: WebhookSettings;
  now: Date;
  sns: SnsNetwork;
  /** Mailgun's signature tokens taken lately: a signature is good for one request (mailgun.server.ts). */
  mailgunTokens?: TokenMemory;
}

export type WebhookAnswer =
  | { status: 200; relay: Relay; events: RelayEvent[]; note?: string }
  /** 503 and 502: a passing failure of ours or of the relay's service; the relay is to retry. */
  | { status: 400 | 401 | 404 | 502 | 503; relay?: Relay; reason: string };

const VARIABLE: Record<Relay, keyof WebhookSettings> = {
  resend: "RESEND_WEBHOOK_SECRET",
  postmark: "POSTMARK_WEBHOOK_AUTH",
  mailgun: "MAILGUN_WEBHOOK_SIGNING_KEY",
  brevo: "BREVO_WEBHOOK_AUTH",
  ses: "SES_WEBHOOK_TOPIC_ARN",
};

/** The relay this path names, when its variable is set; null when the path is to answer 404. */
export function configuredRelay(relay: string, settings: WebhookSettings): Relay | null {
  return isRelay(relay) && settings[VARIABLE[relay]] ? relay : null;
}

export async function handleWebhook(input: WebhookInput): Promise<WebhookAnswer> {
  const relay = configuredRelay(input.relay, input.settings);
  if (!relay) return { status: 404, reason: "no such endpoint" };
  const secret = input.settings[VARIABLE[relay]]!;
  const { headers, body, now } = input;
  const refused = (reason: string): WebhookAnswer => ({ status: 401, relay, reason });
  const answer = (parsed: Parsed): WebhookAnswer => {
    if (!parsed.ok) return { status: 400, relay, reason: parsed.reason };
    return parsed.note
      ? { status: 200, relay, events: parsed.events, note: parsed.note }
      : { status: 200, relay, events: parsed.events };
  };

  switch (relay) {
    case "resend": {
      const refusal = verifyResend(headers, body, secret, now);
      return refusal ? refused(refusal) : answer(parseResend(body, headers.get("svix-id") ?? "", now));
    }
    case "postmark": {
      const refusal = verifyPostmark(headers, secret);
      return refusal ? refused(refusal) : answer(parsePostmark(body, now));
    }
    case "brevo": {
      const refusal = verifyBrevo(headers, secret);
      return refusal ? refused(refusal) : answer(parseBrevo(body, now));
    }
    case "mailgun": {
      // The signature is inside the body: a body that is no JSON object is malformed rather than unsigned.
      if (!jsonObject(body)) return { status: 400, relay, reason: "not a JSON object" };
      const refusal = verifyMailgun(body, secret, now, input.mailgunTokens);
      return refusal ? refused(refusal) : answer(parseMailgun(body, now));
    }
    case "ses":
      return handleSns(body, secret, input.sns, now);
  }
}

async function handleSns(body: string, topicArn: string, sns: SnsNetwork, now: Date): Promise<WebhookAnswer> {
  const relay = "ses";
  const message = parseSnsMessage(body);
  if (!message) return { status: 400, relay, reason: "not an SNS message" };
  const refusal = await verifySns(message, topicArn, sns, now);
  // SNS drops a report answered 4xx and retries a 5xx: a certificate we could not fetch now is not the sender's fault.
  if (refusal === CERTIFICATE_UNAVAILABLE) return { status: 503, relay, reason: refusal };
  if (refusal) return { status: 401, relay, reason: refusal };

  if (message.Type === "UnsubscribeConfirmation") {
    return { status: 200, relay, events: [], note: "the topic's subscription was removed" };
  }
  if (message.Type === "SubscriptionConfirmation") {
    const url = confirmationUrl(message, topicArn);
    if (!url) return { status: 400, relay, reason: "not SNS's confirmation link for this topic" };
    try {
      await sns.confirmSubscription(url);
    } catch {
      // SNS's own service failed us: not the sender's fault, and SNS may send the confirmation again.
      return { status: 502, relay, reason: "the subscription could not be confirmed" };
    }
    return { status: 200, relay, events: [], note: "subscription to the topic confirmed" };
  }
  const parsed = parseSesNotification(message.Message, message.MessageId, now);
  return parsed.ok ? { status: 200, relay, events: parsed.events } : { status: 400, relay, reason: parsed.reason };
}
