// The shapes of the five webhook variables (app/utils/env.server.ts refuses a malformed one at start-up).

/** `whsec_` and the base64 of 24 to 64 random bytes: the Standard Webhooks secret format Resend shows. */
export function standardWebhooksKey(secret: string): Buffer | null {
  const prefix = "whsec_";
  if (!secret.startsWith(prefix)) return null;
  const encoded = secret.slice(prefix.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return null;
  const key = Buffer.from(encoded, "base64");
  return key.length >= 24 && key.length <= 64 ? key : null;
}

/** `user:password`, both parts present (the password may hold spaces and colons): what the owner gives the relay. */
export const isUserPassword = (value: string): boolean => /^[^:\s]+:(?=.*\S).+$/.test(value);

/** A Mailgun webhook signing key: one word, long enough to be a key rather than a placeholder. */
export const isSigningKey = (value: string): boolean => /^\S{16,}$/.test(value);

/** An Amazon SNS topic's ARN: arn:aws:sns:<region>:<account>:<name>. */
export const isSnsTopicArn = (value: string): boolean =>
  /^arn:aws(?:-[a-z]+)*:sns:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:[A-Za-z0-9_-]{1,256}(?:\.fifo)?$/.test(value);

/** The variables, one per relay: a relay whose variable is unset has no endpoint (404). */
export interface WebhookSettings {
  RESEND_WEBHOOK_SECRET?: string;
  POSTMARK_WEBHOOK_AUTH?: string;
  MAILGUN_WEBHOOK_SIGNING_KEY?: string;
  BREVO_WEBHOOK_AUTH?: string;
  SES_WEBHOOK_TOPIC_ARN?: string;
}
