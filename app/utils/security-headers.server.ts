import { createHash, randomBytes } from "node:crypto";
import { env } from "~/utils/env.server";

export const createNonce = () => randomBytes(16).toString("base64");

/**
 * Whether the visitor reached us over HTTPS. Behind a TLS-terminating proxy the request URL says https only when
 * TRUST_PROXY is on (server/index.mjs then lets Express take the scheme from X-Forwarded-Proto).
 */
export const isHttps = (request: Request) => new URL(request.url).protocol === "https:";

/** Headers for every response: documents, resource routes and static files alike. */
function commonHeaders(https: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    // Nothing here is meant to be embedded by other sites (link previews are fetched by servers, not browsers).
    "Cross-Origin-Resource-Policy": "same-origin",
  };
  // Over plain HTTP the header means nothing (browsers ignore it), and we cannot know the visitor is on HTTPS unless
  // the request URL says so. Two years; subdomains are left to the owner (docs/decisions/005-production.md).
  if (https) headers["Strict-Transport-Security"] = "max-age=63072000";
  if (!env.ALLOW_INDEXING) headers["X-Robots-Tag"] = "noindex";
  return headers;
}

/** Responses that are not HTML pages (resource routes, static files): nothing in them may run or be framed. */
export function resourceHeaders(https: boolean): Record<string, string> {
  return {
    ...commonHeaders(https),
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  };
}

/**
 * Which scripts a page may run. A page rendered for one response carries a fresh nonce. A page rendered once and sent
 * to many visitors (the home page cache) must not share one nonce among them: it lists the hashes of its own inline
 * scripts instead, plus our origin for the bundles they import (under 'strict-dynamic' a hash-allowed inline module
 * could not import them).
 */
export type ScriptPolicy = { nonce: string } | { inlineScriptHashes: string[] };

function scriptSrc(policy: ScriptPolicy): string {
  if ("nonce" in policy) return `script-src 'nonce-${policy.nonce}' 'strict-dynamic'`;
  return ["script-src 'self'", ...policy.inlineScriptHashes.map((hash) => `'${hash}'`)].join(" ");
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** The CSP hash sources ('sha256-…') of every inline script in a rendered page, in order, without repeats. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes = "", body = ""] of html.matchAll(INLINE_SCRIPT)) {
    if (/\ssrc\s*=/i.test(attributes) || isDataBlock(attributes)) continue;
    hashes.add(`sha256-${createHash("sha256").update(body, "utf8").digest("base64")}`);
  }
  return [...hashes];
}

const SCRIPT_TYPE = /\stype\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/** A script element the browser never runs (JSON-LD, say): allowing its text by hash would only widen the policy. */
function isDataBlock(attributes: string): boolean {
  const match = SCRIPT_TYPE.exec(attributes);
  if (!match) return false;
  const type = (match[1] ?? match[2] ?? match[3] ?? "").trim().toLowerCase();
  return type !== "" && type !== "module" && !/^(?:text|application)\/(?:x-)?(?:java|ecma)script$/.test(type);
}

/** The headers every HTML (and data) response carries. */
export function securityHeaders(scripts: ScriptPolicy, request: Request): Record<string, string> {
  const csp = [
    // Everything not listed below is refused.
    "default-src 'none'",
    scriptSrc(scripts),
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    // Remix fetches loader data, actions and route manifests from the same origin; `npm run dev` adds its reload socket.
    `connect-src 'self'${DEV_RELOAD_SOURCE}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
  return {
    ...commonHeaders(isHttps(request)),
    "Content-Security-Policy": csp,
    "Permissions-Policy":
      "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()",
    "Cross-Origin-Opener-Policy": "same-origin",
    // For browsers that predate frame-ancestors.
    "X-Frame-Options": "DENY",
  };
}

/** The live-reload socket of `remix dev` (REMIX_DEV_ORIGIN), in development only: production stays 'self'. */
const DEV_RELOAD_SOURCE = (() => {
  const origin = env.NODE_ENV === "development" ? process.env.REMIX_DEV_ORIGIN : undefined;
  if (!origin) return "";
  const url = new URL(origin);
  return ` ${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
})();
