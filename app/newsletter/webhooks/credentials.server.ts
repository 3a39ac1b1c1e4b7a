import { createHash, timingSafeEqual } from "node:crypto";
import type { HeaderSource, Refusal } from "./types";

/**
 * Whether two strings are equal, in time that does not depend on where they differ: both are hashed first, so the
 * comparison is of equal lengths and says nothing about the secret's length either.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/**
 * HTTP Basic credentials (RFC 7617) checked against `user:password`, as Postmark and Brevo send them when the owner
 * puts them in the webhook URL or in the relay's "basic auth" fields.
 */
export function checkBasicAuth(headers: HeaderSource, expected: string): Refusal | null {
  const header = headers.get("authorization");
  if (!header) return "no credentials";
  const match = /^Basic[ \t]+([A-Za-z0-9+/=_-]+)[ \t]*$/i.exec(header);
  if (!match) return "not HTTP Basic credentials";
  const given = Buffer.from(match[1]!, "base64").toString("utf8");
  return sameSecret(given, expected) ? null : "wrong credentials";
}
