import { randomBytes } from "node:crypto";
import { inlineStylesheet } from "~/inline-stylesheet.server";

export const createNonce = () => randomBytes(16).toString("base64");

/** The headers every HTML (and data) response carries. `nonce` is the per-response script nonce. */
export function securityHeaders(nonce: string, request: Request): Record<string, string> {
  const csp = [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    inlineStylesheet ? `style-src 'self' ${inlineStylesheet.cspSource}` : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
  const headers: Record<string, string> = {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    "Cross-Origin-Opener-Policy": "same-origin",
    "X-Frame-Options": "DENY",
  };
  if (new URL(request.url).protocol === "https:") {
    headers["Strict-Transport-Security"] = "max-age=63072000; includeSubDomains";
  }
  return headers;
}
