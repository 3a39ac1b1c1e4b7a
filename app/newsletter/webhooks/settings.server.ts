// The shapes of the five webhook variables: webhookSettingProblems refuses a malformed one at start-up.
import type { SettingProblem } from "~/utils/env.server";

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

/** What is wrong with the webhook variables that are set: one problem per malformed one (never its value). */
export function webhookSettingProblems(settings: WebhookSettings): SettingProblem[] {
  const rules: [keyof WebhookSettings, (value: string) => boolean, string][] = [
    [
      "RESEND_WEBHOOK_SECRET",
      (value) => standardWebhooksKey(value) !== null,
      "must be the webhook's signing secret, whsec_ and base64",
    ],
    ["POSTMARK_WEBHOOK_AUTH", isUserPassword, "must be user:password, the webhook's Basic auth credentials"],
    ["MAILGUN_WEBHOOK_SIGNING_KEY", isSigningKey, "must be Mailgun's HTTP webhook signing key (one word)"],
    ["BREVO_WEBHOOK_AUTH", isUserPassword, "must be user:password, the credentials in the webhook's URL"],
    [
      "SES_WEBHOOK_TOPIC_ARN",
      isSnsTopicArn,
      "must be the SNS topic's ARN, such as arn:aws:sns:eu-west-1:123456789012:ses-bounces",
    ],
  ];
  return rules.flatMap(([variable, valid, message]) => {
    const value = settings[variable];
    return value === undefined || valid(value) ? [] : [{ variable, message }];
  });
}
