import type { IncomingMessage, ServerResponse } from "node:http";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";
import { allValues, firstValue } from "~/utils/http-fields.server";
import { logField, warnThrottled } from "~/utils/log.server";
import { MAX_DISCARD_BYTES } from "~/utils/bounded-body.server";
import { MAX_DRAIN_BYTES } from "~/utils/read-form.server";
import { resourceHeaders } from "~/utils/security-headers.server";
import { staticPage } from "~/server-build/static-page.server";
import { isWebhookTarget, MAX_WEBHOOK_BODY_BYTES } from "~/newsletter/webhooks/limits";

// Bounds on what one request may ask of the server before Remix sees it (docs/decisions/007-request-bounds.md).
// Our longest real URL is an unsubscribe link (~70 characters) and our deepest path has one segment.
const MAX_TARGET_LENGTH = 2_048;
export const MAX_PATH_SEGMENTS = 16;
const MAX_BODY_BYTES = MAX_DRAIN_BYTES;

export interface Refusal {
  status: 400 | 403 | 413 | 414;
  /** A short, fixed reason: it names the log line, so a flood of one kind is throttled as one. */
  reason: string;
}

/** The request target (path and query) is bounded, well-formed, and in origin form. */
export function checkTarget(target: string): Refusal | null {
  if (target.length > MAX_TARGET_LENGTH) return { status: 414, reason: "request target too long" };
  if (!target.startsWith("/")) return { status: 400, reason: "request target not a path" };
  const queryStart = target.indexOf("?");
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  if (tooDeep(path)) return { status: 414, reason: "path too deep" };
  try {
    decodeURIComponent(path);
  } catch {
    return { status: 400, reason: "bad percent-encoding" };
  }
  return null;
}

/** The declared body size a post to `target` may have: a relay's webhook report is far smaller than a form's bound. */
export const maxBodyBytes = (target: string): number =>
  isWebhookTarget(target) ? MAX_WEBHOOK_BODY_BYTES : MAX_BODY_BYTES;

/**
 * A post to an unsubscribe link that carries its token (RFC 8058 one-click, the page's own form): the token says all,
 * so its body, whatever its size, is dropped unread by the route (app/routes/unsubscribe.tsx) rather than refused.
 */
export function isOneClickUnsubscribe(target: string): boolean {
  const queryStart = target.indexOf("?");
  if (queryStart === -1 || target.slice(0, queryStart) !== "/unsubscribe") return false;
  const token = new URLSearchParams(target.slice(queryStart + 1)).get("token")?.trim().toLowerCase();
  return isUnsubscribeToken(token);
}

/** Remix's lazy route discovery endpoint (v3_lazyRouteDiscovery): `?p=<path>` for each path the browser may visit. */
const ROUTE_DISCOVERY_PATH = "/__manifest";

function tooDeep(path: string): boolean {
  let segments = 0;
  for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) {
    segments += 1;
    if (segments > MAX_PATH_SEGMENTS) return true;
  }
  return false;
}

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::(\d{1,5}))?$/;

/**
 * Whether a Host (or X-Forwarded-Host) value is a host with an optional port (1–65535: port 0 is no port anything
 * listens on), as a URL would take it.
 */
export function isValidHost(value: string): boolean {
  const match = HOST.exec(value);
  if (!match) return false;
  const port = match[1] === undefined ? undefined : Number(match[1]);
  if (port !== undefined && (port < 1 || port > 65_535)) return false;
  try {
    return new URL(`http://${value}/`).host !== "";
  } catch {
    return false;
  }
}

/**
 * Headers the request URL is built from when the proxy is trusted: Express takes the host from the first
 * X-Forwarded-Host value and the scheme from X-Forwarded-Proto, and Remix's adapter takes the port from whatever
 * follows the first colon of the whole X-Forwarded-Host header, trusted or not. Without a trusted proxy they are the
 * client's claims and are removed before anything reads them.
 */
const FORWARDED_URL_HEADERS = ["x-forwarded-host", "x-forwarded-proto"] as const;

export interface CrossSiteInput {
  /** `Sec-Fetch-Site`, sent by every current browser with every request. */
  secFetchSite: string | undefined;
  origin: string | undefined;
  /** The hosts the site answers as: Host, X-Forwarded-Host when the proxy is trusted, the owner's site URL. */
  ownHosts: string[];
}

/**
 * One rule for every post, form post and data request alike: a browser's Fetch Metadata decides when it is sent
 * (only the site's own pages send `same-origin`, whatever Host the proxy passes on); otherwise the Origin must be one
 * of the site's hosts. A post with neither comes from no browser (curl, a mail provider's one-click unsubscribe):
 * nothing ambient to abuse, so it passes.
 */
export function crossSiteVerdict({ secFetchSite, origin, ownHosts }: CrossSiteInput): "allow" | "refuse" {
  if (secFetchSite !== undefined) return secFetchSite === "same-origin" || secFetchSite === "none" ? "allow" : "refuse";
  if (origin === undefined) return "allow";
  if (origin === "null") return "refuse";
  try {
    return ownHosts.includes(new URL(origin).host) ? "allow" : "refuse";
  } catch {
    return "refuse";
  }
}

export interface RequestGuardOptions {
  trustProxy: boolean;
  /** The owner's site URL (content), one of the hosts a post may come from. */
  siteUrl: string;
  /** Whether the visitor reached us over HTTPS, as Express decides it (TRUST_PROXY-aware). */
  isHttps: (req: IncomingMessage) => boolean;
}

export type RequestGuard = (req: IncomingMessage, res: ServerResponse) => boolean;

const REFUSED_POST_PAGE = staticPage(
  "Request refused",
  "This form can only be sent from this site's own pages. Nothing was stored.",
);

/**
 * Looks at a request before anything else does (the page cache, Express, Remix) and answers it at once when it is
 * malformed, oversized or a cross-site post: a 4xx with the usual headers and one throttled log line. Returns whether
 * it answered. A post it lets through has its Origin already judged, so Remix's narrower Origin-vs-Host check, which
 * refuses the site's own posts behind a proxy that rewrites Host, does not judge it again.
 */
export function createRequestGuard({ trustProxy, siteUrl, isHttps }: RequestGuardOptions): RequestGuard {
  const siteHost = new URL(siteUrl).host;
  const hints = new Set<string>();

  function inspect(req: IncomingMessage): Refusal | null {
    const target = req.url ?? "";
    const targetRefusal = checkTarget(target);
    if (targetRefusal) return targetRefusal;

    const host = req.headers.host;
    if (!host) return { status: 400, reason: "missing Host" };
    if (!isValidHost(host)) return { status: 400, reason: "bad Host" };
    if (trustProxy) {
      const forwardedHosts = allValues(req.headers["x-forwarded-host"]);
      if (forwardedHosts !== undefined && !forwardedHosts.every(isValidHost)) {
        return { status: 400, reason: "bad X-Forwarded-Host" };
      }
      const proto = firstValue(req.headers["x-forwarded-proto"]);
      if (proto !== undefined && proto !== "http" && proto !== "https") {
        return { status: 400, reason: "bad X-Forwarded-Proto" };
      }
    }

    const queryStart = target.indexOf("?");
    if (queryStart !== -1) {
      const query = new URLSearchParams(target.slice(queryStart + 1));
      // Single fetch asks for data at `<path>.data`; Remix would answer a leftover `?_data=` request with a warning.
      if (query.has("_data")) return { status: 400, reason: "_data request" };
      // Route discovery matches routes for every prefix of each path it is asked about: the same depth bound.
      if (target.startsWith(`${ROUTE_DISCOVERY_PATH}?`) && query.getAll("p").some(tooDeep)) {
        return { status: 414, reason: "path too deep" };
      }
    }

    if (req.method === "POST") {
      const declared = Number(req.headers["content-length"] ?? "0");
      if (!(declared <= maxBodyBytes(target)) && !isOneClickUnsubscribe(target)) {
        return { status: 413, reason: "body too large" };
      }
      const origin = req.headers.origin;
      const ownHosts = [host, siteHost];
      const forwardedHost = trustProxy ? firstValue(req.headers["x-forwarded-host"]) : undefined;
      if (forwardedHost) ownHosts.push(forwardedHost);
      const secFetchSite = firstValue(req.headers["sec-fetch-site"]);
      if (crossSiteVerdict({ secFetchSite, origin, ownHosts }) === "refuse") {
        return { status: 403, reason: "cross-site post" };
      }
      noteProxyHost(origin, secFetchSite, forwardedHost ?? host);
    }
    return null;
  }

  /** The browser says the post is its own page's, yet its Origin is not the Host we got: the proxy rewrites Host. */
  function noteProxyHost(origin: string | undefined, secFetchSite: string | undefined, host: string) {
    if (secFetchSite !== "same-origin" || origin === undefined) return;
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      return;
    }
    if (originHost === host) return;
    hintOnce(
      "host",
      `Proxy: a post from the site's own page (Origin ${logField(origin)}) arrived with Host ${logField(host)}: ` +
        "the proxy in front does not pass the visitor's Host. Posts still work, but fix it: with nginx add " +
        "`proxy_set_header Host $host;` (deploy/nginx.conf); Caddy passes it by default.",
    );
  }

  function noteForwarding(req: IncomingMessage) {
    if (!trustProxy && req.headers["x-forwarded-for"] !== undefined) {
      hintOnce(
        "trust",
        "Proxy: requests carry X-Forwarded-For but TRUST_PROXY is off, so every visitor counts as the proxy's " +
          "address for the rate limit and HTTPS is not recognised. Set TRUST_PROXY=true when a proxy you run is in " +
          "front (and only then).",
      );
    }
  }

  function hintOnce(key: string, line: string) {
    if (hints.has(key)) return;
    hints.add(key);
    console.warn(line);
  }

  function refuse(req: IncomingMessage, res: ServerResponse, { status, reason }: Refusal) {
    warnThrottled(
      `Refused ${status} (${reason}): ${req.method ?? "?"} ${logField(req.url ?? "")} ` +
        `from ${req.socket.remoteAddress ?? "unknown"}`,
    );
    const html = status === 403;
    const body = html ? REFUSED_POST_PAGE : `${STATUS_TEXT[status]}\n`;
    res.writeHead(status, {
      ...resourceHeaders(isHttps(req)),
      "Content-Type": html ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
      // The request we refused (and its body we do not want) ends the connection once answered.
      Connection: "close",
    });
    // The whole answer goes out now, but the connection stays open while the client is still sending: closing a
    // socket with unread data resets it, and a reset makes the client drop our answer unread.
    res.write(req.method === "HEAD" ? "" : body);
    drainThen(req, () => res.end());
  }

  return function guard(req, res) {
    const refusal = inspect(req);
    if (refusal) {
      refuse(req, res, refusal);
      return true;
    }
    noteForwarding(req);
    if (!trustProxy) for (const name of FORWARDED_URL_HEADERS) delete req.headers[name];
    if (req.method === "POST") delete req.headers.origin;
    return false;
  };
}

/** How long a refused request's body is read and dropped (at most MAX_DISCARD_BYTES) before its connection closes. */
const DRAIN_GRACE_MS = 5_000;

/** Reads and drops the rest of a request's body, then calls `done`: at its end, or at the bounds above. */
function drainThen(req: IncomingMessage, done: () => void) {
  let received = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    req.off("data", count);
    done();
  };
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_DISCARD_BYTES) finish();
  };
  const timer = setTimeout(finish, DRAIN_GRACE_MS);
  timer.unref();
  if (req.complete) return finish();
  req.on("data", count);
  req.once("end", finish);
  req.once("error", finish);
  req.once("close", finish);
}

const STATUS_TEXT: Record<Refusal["status"], string> = {
  400: "Bad Request",
  403: "Forbidden",
  413: "Payload Too Large",
  414: "URI Too Long",
};
