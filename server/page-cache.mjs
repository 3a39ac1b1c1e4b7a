// The whole-page cache of the anonymous home page, used by server/index.mjs before Express
// (docs/decisions/006-page-cache-and-csp.md). Every visitor without a toast cookie gets the same HTML for a given
// (Brussels date, latest post), so that HTML is rendered once through Remix, compressed once, and sent from memory.
import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { createRequestHandler } from "@remix-run/node";
import { parse as parseCookies } from "cookie";
import Negotiator from "negotiator";
import { isHomePageTarget } from "./tracking-query.mjs";

/** @typedef {"br" | "gzip" | "identity"} Encoding */
/** @typedef {Record<string, string | number>} HeaderSet */
/**
 * One rendered page: its bodies per encoding and, per encoding, the headers for plain HTTP and for HTTPS (only the
 * latter carry Strict-Transport-Security, exactly as a normal render would).
 * @typedef {{
 *   key: string,
 *   bodies: Record<Encoding, Buffer>,
 *   etags: Record<Encoding, string>,
 *   headers: Record<Encoding, { http: HeaderSet, https: HeaderSet }>,
 * }} Entry
 */

const ENCODINGS = /** @type {const} */ (["br", "gzip", "identity"]);
// Headers of the render that do not describe the page itself (or that we set per encoding).
const DROPPED_HEADERS = new Set(["content-length", "content-encoding", "transfer-encoding", "etag", "vary", "date"]);
const HSTS = "strict-transport-security";

/**
 * @param {{
 *   build: import("@remix-run/node").ServerBuild,
 *   mode: string,
 *   homePageCacheKey: (now: Date) => string | null,
 *   renderedKeyHeader: string,
 *   flashCookieNames: string[],
 *   isHttps: (req: import("node:http").IncomingMessage) => boolean,
 *   matchesEtag: (ifNoneMatch: string | string[] | undefined, etag: string) => boolean,
 *   onError: import("./last-resort.mjs").ErrorAnswer,
 *   reportFault: (what: string, error: unknown) => void,
 * }} options `onError` answers a request whose sending threw after the render (server/last-resort.mjs); what throws
 *   at once is the caller's to catch, as for any other request.
 */
export function createHomePageCache({
  build,
  mode,
  homePageCacheKey,
  renderedKeyHeader,
  flashCookieNames,
  isHttps,
  matchesEtag,
  onError,
  reportFault,
}) {
  const render = createRequestHandler(build, mode);
  const dropped = new Set([...DROPPED_HEADERS, renderedKeyHeader]);
  /** @type {Entry | null} Only the current key's entry is kept: the cache never grows. */
  let entry = null;
  /** @type {{ key: string, promise: Promise<Entry | null> } | null} One render per key, however many wait for it. */
  let pending = null;
  /** @type {string | null} A key whose render could not be cached (not 200, or it set a cookie): don't retry it. */
  let uncacheableKey = null;

  /** @param {Entry} page @param {import("node:http").IncomingMessage} req @param {import("node:http").ServerResponse} res */
  function send(page, req, res) {
    const encoding = negotiateEncoding(req.headers["accept-encoding"]);
    const headers = page.headers[encoding][isHttps(req) ? "https" : "http"];
    if (matchesEtag(req.headers["if-none-match"], page.etags[encoding])) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const body = page.bodies[encoding];
    res.writeHead(200, { ...headers, "content-length": body.length });
    // Node sends no body for HEAD whatever we pass.
    res.end(req.method === "HEAD" ? undefined : body);
  }

  /** @param {string} key @returns {Promise<Entry | null>} */
  async function fill(key) {
    // A request with no cookie and no query: whatever the app answers to it is what every anonymous visitor gets.
    // `sharedPage`: rendered without a nonce, its CSP lists its inline scripts' hashes (no nonce shared by visitors).
    const response = await render(new Request("https://localhost/", { headers: { accept: "text/html" } }), {
      clientAddress: "home-page-cache",
      sharedPage: true,
    });
    const body = Buffer.from(await response.arrayBuffer());
    // The key of what was rendered, from the render itself (the date and the latest post its loader used).
    const rendered = response.headers.get(renderedKeyHeader);
    if (response.status !== 200 || response.headers.has("set-cookie") || rendered === null) {
      uncacheableKey = key;
      const why = response.headers.has("set-cookie") ? " with a cookie" : rendered === null ? " without its key" : "";
      console.warn(
        `Home page cache: the anonymous render answered ${response.status}${why}; not caching it until the page changes.`,
      );
      return null;
    }
    const page = createEntry(decodeURIComponent(rendered), response.headers, body, dropped);
    entry = page;
    // The date or the latest post changed while rendering: the page is kept for its own key, not sent for this one.
    return page.key === key ? page : null;
  }

  /**
   * Answers `GET /` and `HEAD /` from anonymous visitors from the cache, with no query string or one that only tracks
   * (server/tracking-query.mjs: `?utm_source=…`, `?fbclid=…`); hands everything else to `next`.
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @param {() => void} next
   */
  return function handleHomePage(req, res, next) {
    if (
      (req.method !== "GET" && req.method !== "HEAD") ||
      !isHomePageTarget(req.url) ||
      flashCookieNames.some((name) => hasCookie(req, name))
    ) {
      return next();
    }
    let key;
    try {
      key = homePageCacheKey(new Date());
    } catch (error) {
      reportFault("Home page cache: no key, Remix answers instead:", error);
      return next();
    }
    if (key === null || key === uncacheableKey) return next();
    if (entry?.key === key) return send(entry, req, res);
    if (entry && entry.key !== key) entry = null;

    if (pending?.key !== key) {
      const promise = fill(key).finally(() => {
        if (pending?.promise === promise) pending = null;
      });
      pending = { key, promise };
    }
    pending.promise
      .then(
        (page) => (page ? send(page, req, res) : next()),
        (error) => {
          reportFault("Home page cache: render failed, Remix answers instead:", error);
          next();
        },
      )
      // Out of the caller's try by now: unhandled, a throw here would be a rejection that ends the process.
      .catch((error) => onError(req, res, error));
  };
}

/**
 * @param {string} key @param {Headers} rendered @param {Buffer} identity
 * @param {Set<string>} dropped the render's headers that are not the page's @returns {Entry}
 */
function createEntry(key, rendered, identity, dropped) {
  /** @type {Record<Encoding, Buffer>} */
  const bodies = {
    identity,
    gzip: gzipSync(identity, { level: constants.Z_BEST_COMPRESSION }),
    br: brotliCompressSync(identity, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
  };
  const hash = createHash("sha256").update(identity).digest("base64url").slice(0, 27);
  /** @type {HeaderSet} */
  const common = {};
  for (const [name, value] of rendered) if (!dropped.has(name)) common[name] = value;
  common.vary = "Accept-Encoding";

  /** @type {Partial<Entry["etags"]>} */
  const etags = {};
  /** @type {Partial<Entry["headers"]>} */
  const headers = {};
  for (const encoding of ENCODINGS) {
    // One validator per representation: a gzip body must never be confirmed as the identity one.
    const etag = `"${hash}${encoding === "identity" ? "" : `-${encoding}`}"`;
    /** @type {HeaderSet} */
    const https = { ...common, etag, ...(encoding === "identity" ? {} : { "content-encoding": encoding }) };
    const http = { ...https };
    delete http[HSTS];
    etags[encoding] = etag;
    headers[encoding] = { http, https };
  }
  return {
    key,
    bodies,
    etags: /** @type {Entry["etags"]} */ (etags),
    headers: /** @type {Entry["headers"]} */ (headers),
  };
}

/**
 * The best encoding the client accepts: br, then gzip (a `*` counts for both), else identity.
 * @param {string | undefined} header
 * @returns {Encoding}
 */
export function negotiateEncoding(header) {
  if (!header) return "identity";
  const negotiator = new Negotiator({ headers: { "accept-encoding": header } });
  // Equal weights go to our preference, br before gzip, whatever their order in the header (negotiator 0.6.4 takes
  // that preference as a second argument; its type definitions do not list it yet).
  const encodings = /** @type {(available: string[], preferred: string[]) => string[]} */ (negotiator.encodings);
  const [best] = encodings.call(negotiator, [...ENCODINGS], ["br", "gzip"]);
  return /** @type {Encoding | undefined} */ (best) ?? "identity";
}

/** @param {import("node:http").IncomingMessage} req @param {string} name */
function hasCookie(req, name) {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[name] !== undefined : false;
}
