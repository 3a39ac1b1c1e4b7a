/**
 * Signs webhook bodies as each relay signs them (their documented schemes), for the unit and HTTP tests, and makes an
 * SNS-like signing certificate with openssl at test time (the real one is only at sns.<region>.amazonaws.com).
 */
import { execFileSync } from "node:child_process";
import { createHmac, createSign, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/webhooks");

/** A fixture's text exactly as stored. */
export const fixtureText = (relay: string, name: string): string =>
  readFileSync(path.join(FIXTURES, relay, `${name}.json`), "utf8");

/**
 * A fixture as an object. An SNS envelope's Timestamp becomes now: the server takes SNS messages no older than its
 * retry window (an hour), so a signed copy of the documented sample is as fresh as SNS's own would be.
 */
export function fixture(relay: string, name: string): Record<string, unknown> {
  const value = JSON.parse(fixtureText(relay, name)) as Record<string, unknown>;
  return relay === "ses" && typeof value.Timestamp === "string"
    ? { ...value, Timestamp: new Date().toISOString() }
    : value;
}

export const RESEND_SECRET = `whsec_${Buffer.from("resend-test-signing-key-0123456789").toString("base64")}`;
export const MAILGUN_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
export const POSTMARK_AUTH = "postmark-hook:c0rrect horse";
export const BREVO_AUTH = "brevo-hook:battery-staple";
export const TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:ses-bounces";

/** Standard Webhooks headers for `body`, signed with `secret` at `seconds` (Unix time). */
export function resendHeaders(
  body: string,
  seconds: number,
  id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
  secret = RESEND_SECRET,
) {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${seconds}.${body}`).digest("base64");
  return { "svix-id": id, "svix-timestamp": String(seconds), "svix-signature": `v1,${signature}` };
}

/** A Mailgun body: the fixture with a fresh signature block for `seconds`. */
export function mailgunBody(name: string, seconds: number, key = MAILGUN_KEY, token = randomBytes(25).toString("hex")) {
  const payload = fixture("mailgun", name);
  const signature = createHmac("sha256", key).update(`${seconds}${token}`).digest("hex");
  return JSON.stringify({ ...payload, signature: { token, timestamp: String(seconds), signature } });
}

export const basicAuth = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

export interface TestSigner {
  certificate: string;
  privateKey: string;
}

/** A self-signed RSA certificate and its key, valid from yesterday for a year, made with openssl. */
export function makeSigner(): TestSigner {
  const dir = mkdtempSync(path.join(tmpdir(), "sns-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "365",
        "-subj",
        "/CN=sns.amazonaws.com",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return {
      certificate: readFileSync(path.join(dir, "cert.pem"), "utf8"),
      privateKey: readFileSync(path.join(dir, "key.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** SNS's text to sign (written here from AWS's documentation, apart from the app's own copy). */
function snsCanonical(message: Record<string, unknown>): string {
  const names =
    message.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return names
    .filter((name) => typeof message[name] === "string")
    .map((name) => `${name}\n${message[name] as string}\n`)
    .join("");
}

/** The message with its Signature set, by the signer's key, with SHA1 (version 1) or SHA256 (version 2). */
export function signSns(message: Record<string, unknown>, signer: TestSigner): Record<string, unknown> {
  const sign = createSign(message.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256");
  sign.update(snsCanonical(message));
  return { ...message, Signature: sign.sign(signer.privateKey, "base64") };
}

/** An SNS notification carrying the SES fixture `name`, signed. */
export function sesNotification(name: string, signer: TestSigner, overrides: Record<string, unknown> = {}) {
  const envelope = { ...fixture("ses", "sns-notification"), Message: fixtureText("ses", name), ...overrides };
  return signSns(envelope, signer);
}
