// Amazon SNS delivers SES's bounce and complaint notifications. Each message is signed with RSA over a canonical
// text of its fields (SHA1 for SignatureVersion 1, SHA256 for 2), and the certificate comes from a URL in the message:
// it is believed only on SNS's own host, over HTTPS.
import { X509Certificate, verify } from "node:crypto";
import { jsonObject, text } from "./text";
import type { Refusal } from "./types";

/** An SNS message as it arrives: a notification, or a subscription's (un)confirmation. */
export interface SnsMessage {
  Type: "Notification" | "SubscriptionConfirmation" | "UnsubscribeConfirmation";
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: "1" | "2";
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
}

/** Where the signing certificate comes from, and how a subscription is confirmed: the network, or a test's stand-in. */
export interface SnsNetwork {
  /** The PEM text at `url` (already checked to be SNS's own host over HTTPS). */
  fetchCertificate(url: URL): Promise<string>;
  /** Opens `url` (already checked likewise), which confirms the subscription. */
  confirmSubscription(url: URL): Promise<void>;
}

// sns.<region>.amazonaws.com, the only host SNS's certificates and confirmation links come from (AWS's guidance).
const SNS_HOST = /^sns\.[a-z]{2}(?:-[a-z]+)+-\d\.amazonaws\.com$/;

/** The URL, when it is HTTPS on SNS's host (default port, no credentials); null otherwise. */
export function snsUrl(value: string | undefined): URL | null {
  if (!value || !URL.canParse(value)) return null;
  const url = new URL(value);
  const plain = url.protocol === "https:" && url.port === "" && url.username === "" && url.password === "";
  return plain && SNS_HOST.test(url.hostname) ? url : null;
}

/** A signing certificate's URL: SNS's host, and a .pem file. */
export function signingCertUrl(value: string | undefined): URL | null {
  const url = snsUrl(value);
  return url && url.pathname.endsWith(".pem") && url.search === "" ? url : null;
}

const TYPES = new Set(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]);

/** The SNS message in a body, or null when the body is none (a 400). */
export function parseSnsMessage(body: string): SnsMessage | null {
  const value = jsonObject(body);
  if (!value || !TYPES.has(String(value.Type))) return null;
  const required = ["MessageId", "TopicArn", "Message", "Timestamp", "Signature", "SigningCertURL"] as const;
  if (!required.every((name) => typeof value[name] === "string")) return null;
  if (value.SignatureVersion !== "1" && value.SignatureVersion !== "2") return null;
  for (const optional of ["Subject", "SubscribeURL", "Token"] as const) {
    if (value[optional] !== undefined && value[optional] !== null && typeof value[optional] !== "string") return null;
  }
  if (value.Type !== "Notification" && (!text(value.SubscribeURL) || !text(value.Token))) return null;
  return { ...(value as unknown as SnsMessage), Subject: text(value.Subject) };
}

/** The text SNS signs: each field's name and value on lines of their own, in this order (AWS's documentation). */
export function stringToSign(message: SnsMessage): string {
  const fields =
    message.Type === "Notification"
      ? (["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] as const)
      : (["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"] as const);
  return fields
    .filter((name) => message[name] !== undefined)
    .map((name) => `${name}\n${message[name]}\n`)
    .join("");
}

/** The refusal that is a passing failure of ours (the certificate could not be fetched now): SNS is to retry. */
export const CERTIFICATE_UNAVAILABLE = "certificate could not be had";

/**
 * How old a message's Timestamp may be: SNS gives up retrying an HTTP/S endpoint within an hour (its delivery policy's
 * hard limit of 3,600 s), plus a few minutes for the clocks; an older message is a replay.
 */
export const FRESH_FOR_MS = 65 * 60 * 1000;
const CLOCK_AHEAD_MS = 5 * 60 * 1000;

/**
 * The SubscribeURL, when it is exactly SNS's confirmation link for this message: HTTPS on SNS's host, path "/", and
 * only Action=ConfirmSubscription, the owner's TopicArn and the message's own Token in its query.
 */
export function confirmationUrl(message: SnsMessage, topicArn: string): URL | null {
  const url = snsUrl(message.SubscribeURL);
  if (!url || url.pathname !== "/" || url.hash !== "") return null;
  const names = [...url.searchParams.keys()].sort();
  if (names.join(",") !== "Action,Token,TopicArn") return null;
  const params = url.searchParams;
  const good =
    params.get("Action") === "ConfirmSubscription" &&
    params.get("TopicArn") === topicArn &&
    params.get("Token") === message.Token;
  return good ? url : null;
}

/**
 * Whether the message is SNS's, from the owner's topic: the topic and the message's age first (no fetch for another
 * topic's message or an old one), then the certificate's URL, then the signature with the certificate's key, the
 * certificate valid now.
 */
export async function verifySns(
  message: SnsMessage,
  topicArn: string,
  network: SnsNetwork,
  now: Date,
): Promise<Refusal | null> {
  if (message.TopicArn !== topicArn) return "another topic";
  const sent = Date.parse(message.Timestamp);
  if (!Number.isFinite(sent)) return "malformed timestamp";
  if (now.getTime() - sent > FRESH_FOR_MS || sent - now.getTime() > CLOCK_AHEAD_MS) return "timestamp not fresh";
  const certUrl = signingCertUrl(message.SigningCertURL);
  if (!certUrl) return "certificate not from SNS's host over HTTPS";
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(await network.fetchCertificate(certUrl));
  } catch {
    return CERTIFICATE_UNAVAILABLE;
  }
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return "certificate expired";
  const algorithm = message.SignatureVersion === "1" ? "sha1" : "sha256";
  const signature = Buffer.from(message.Signature, "base64");
  try {
    const good = verify(algorithm, Buffer.from(stringToSign(message), "utf8"), certificate.publicKey, signature);
    return good ? null : "signature does not match";
  } catch {
    return "signature does not match";
  }
}
