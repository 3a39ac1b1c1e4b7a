/**
 * Pure translation from X API v2 answers (and the shared Bluesky / Mastodon outcomes) to this function's response,
 * kept free of Deno globals and package imports so it can be unit-tested under Node
 * (tests/unit/latest-post/edge-function.test.ts).
 *
 * Contract with the site: a 2xx answer carries `{ text, url?, source?, createdAt? }` with non-empty text; every
 * failure carries `{ error }` with a non-2xx status. The site hides the card on either kind of failure, so messages
 * are for logs and humans, never shown to visitors.
 */
import type { LatestPostBody, Outcome } from "../_shared/latest-post/post.ts";

export type TextBody = LatestPostBody;

export interface ErrorBody {
  error: string;
}

export type ResponseBody = TextBody | ErrorBody;

export interface Shaped {
  status: number;
  body: ResponseBody;
  headers: Record<string, string>;
}

/** What came back from one call to the X API, reduced to what the shaping needs. */
export type Upstream =
  | {
      kind: "response";
      status: number;
      body: string;
      /** The x-rate-limit-reset header: epoch seconds when the window reopens. */
      rateLimitReset?: string | null;
    }
  | { kind: "timeout" }
  | { kind: "network-error" };

export type UserRef = { kind: "id"; id: string } | { kind: "username"; username: string };

export interface CachedText extends LatestPostBody {
  /** Epoch milliseconds when the post was fetched. */
  fetchedAt: number;
}

export const X_API_BASE = "https://api.x.com/2";
/** Browsers and proxies may reuse a post this long; the feed is not that lively. */
export const SUCCESS_MAX_AGE_SECONDS = 300;
/** A new fetch is not attempted while the isolate's copy is younger than this. */
export const FRESH_FOR_MS = SUCCESS_MAX_AGE_SECONDS * 1000;
/** An older post is still better than no card while X is down or rate-limiting us. */
export const STALE_FOR_MS = 24 * 60 * 60 * 1000;
/** X's rate-limit windows are 15 minutes; never tell a client to wait longer than one. */
const MAX_RETRY_AFTER_SECONDS = 15 * 60;
const DEFAULT_RETRY_AFTER_SECONDS = 60;

const NO_STORE = { "Cache-Control": "no-store" };

function failure(status: number, error: string, headers: Record<string, string> = {}): Shaped {
  return { status, body: { error }, headers: { ...NO_STORE, ...headers } };
}

export function success(post: string | TextBody, maxAgeSeconds = SUCCESS_MAX_AGE_SECONDS): Shaped {
  const body = typeof post === "string" ? { text: post } : post;
  return { status: 200, body, headers: { "Cache-Control": `public, max-age=${maxAgeSeconds}` } };
}

/** The post kept in the isolate, without its bookkeeping. */
export function cachedPost(cached: CachedText): TextBody {
  const { fetchedAt: _fetchedAt, ...post } = cached;
  return post;
}

/**
 * A Bluesky / Mastodon outcome (shared with the site: supabase/functions/_shared/latest-post) as this function's
 * answer, with the same statuses as the X path.
 */
export function shapeOutcome(outcome: Outcome): Shaped {
  if (outcome.ok) return success(outcome.post);
  switch (outcome.kind) {
    case "no-post":
      return failure(404, `No recent posts: ${outcome.cause}`);
    case "rate-limited":
      return failure(503, outcome.cause, { "Retry-After": String(outcome.retryAfterSeconds ?? 60) });
    case "timeout":
      return failure(504, outcome.cause);
    default:
      return failure(502, outcome.cause);
  }
}

export function isTextBody(body: ResponseBody): body is TextBody {
  return "text" in body;
}

/**
 * X_USER_ID may hold the numeric id (one API call per refresh) or a handle such as "@someone"
 * (an extra lookup first). Anything else is a configuration mistake.
 */
export function parseUserRef(raw: string | undefined): UserRef | null {
  const value = raw?.trim() ?? "";
  if (/^\d{1,19}$/.test(value)) return { kind: "id", id: value };
  const handle = /^@?([A-Za-z0-9_]{1,15})$/.exec(value);
  if (handle?.[1]) return { kind: "username", username: handle[1] };
  return null;
}

export interface Config {
  token: string;
  user: UserRef;
}

export function readConfig(env: { X_BEARER_TOKEN?: string; X_USER_ID?: string }): Config | Shaped {
  const token = env.X_BEARER_TOKEN?.trim();
  if (!token) return failure(500, "X_BEARER_TOKEN is not set");
  const user = parseUserRef(env.X_USER_ID);
  if (!user) return failure(500, "X_USER_ID must be a numeric user id or an @handle");
  return { token, user };
}

/**
 * Where the X API is: its real address, unless X_API_BASE_URL names another (the tests' fake X API on loopback).
 * Anything that is not an http(s) URL is ignored.
 */
export function apiBase(raw: string | undefined): string {
  const value = raw?.trim().replace(/\/+$/, "");
  return value && /^https?:\/\/[^\s/]+/.test(value) ? value : X_API_BASE;
}

/** How long one X API call may take: X_TIMEOUT_MS when it is a whole number of milliseconds, else the default. */
export function upstreamTimeoutMs(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw && Number.isInteger(value) && value > 0 ? value : fallback;
}

export function timelineUrl(userId: string, base: string = X_API_BASE): string {
  const query = new URLSearchParams({
    max_results: "5", // the endpoint's minimum
    exclude: "replies,retweets",
    // Long posts are cut at 280 characters in `text`; the full version is in note_tweet.
    "tweet.fields": "note_tweet",
  });
  return `${base}/users/${encodeURIComponent(userId)}/tweets?${query.toString()}`;
}

export function userLookupUrl(username: string, base: string = X_API_BASE): string {
  return `${base}/users/by/username/${encodeURIComponent(username)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// X escapes these three in post text; the site renders text, not HTML, so they must be undone (&amp; last,
// so "&amp;lt;" becomes "&lt;" and not "<").
export function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** The text of the newest post that has any, or null. Posts arrive newest first. */
export function latestText(payload: unknown): string | null {
  if (!isRecord(payload) || !Array.isArray(payload.data)) return null;
  for (const post of payload.data) {
    if (!isRecord(post)) continue;
    const note = isRecord(post.note_tweet) ? post.note_tweet.text : undefined;
    const raw = typeof note === "string" && note.trim() ? note : post.text;
    if (typeof raw !== "string") continue;
    const text = decodeEntities(raw).trim();
    if (text) return text;
  }
  return null;
}

/** The first problem's title/detail, for logs; X puts partial failures in `errors` even on a 200. */
function problemSummary(payload: unknown): string | null {
  if (!isRecord(payload)) return null;
  const problem = Array.isArray(payload.errors) && isRecord(payload.errors[0]) ? payload.errors[0] : payload;
  const parts = [problem.title, problem.detail].filter(
    (part, index, all): part is string => typeof part === "string" && part !== "" && all.indexOf(part) === index,
  );
  return parts.length > 0 ? parts.join(": ") : null;
}

export function retryAfterSeconds(rateLimitReset: string | null | undefined, nowMs: number): number {
  const resetSeconds = Number(rateLimitReset);
  if (!rateLimitReset || !Number.isFinite(resetSeconds)) return DEFAULT_RETRY_AFTER_SECONDS;
  const wait = Math.ceil(resetSeconds - nowMs / 1000);
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, wait));
}

/**
 * Maps transport trouble and non-2xx answers, shared by both X calls. A 2xx with JSON comes back as its
 * parsed payload for the caller to inspect.
 */
function shapeTransport(upstream: Upstream, nowMs: number): Shaped | { payload: unknown } {
  if (upstream.kind === "timeout") return failure(504, "X API did not answer in time");
  if (upstream.kind === "network-error") return failure(502, "Could not reach the X API");

  const payload = parseJson(upstream.body);
  const status = upstream.status;
  if (status === 429) {
    const wait = retryAfterSeconds(upstream.rateLimitReset, nowMs);
    return failure(503, "Rate limited by the X API", { "Retry-After": String(wait) });
  }
  if (status === 401 || status === 403) {
    const why = problemSummary(payload);
    return failure(502, `X API refused the credentials (${status}${why ? `: ${why}` : ""})`);
  }
  if (status < 200 || status > 299) {
    const why = problemSummary(payload);
    return failure(502, `X API answered ${status}${why ? `: ${why}` : ""}`);
  }
  if (payload === undefined) return failure(502, "X API answered with something that is not JSON");
  return { payload };
}

function isShaped(value: Shaped | { payload: unknown }): value is Shaped {
  return "status" in value;
}

/** Turns the timeline call's outcome into the function's answer. */
export function shapeTimeline(upstream: Upstream, nowMs: number): Shaped {
  const transport = shapeTransport(upstream, nowMs);
  if (isShaped(transport)) return transport;
  const text = latestText(transport.payload);
  if (text) return success(text);
  const problem = problemSummary(transport.payload);
  if (problem) return failure(502, `X API reported: ${problem}`);
  if (!isRecord(transport.payload)) return failure(502, "X API answered with an unexpected shape");
  // A valid answer with nothing in it (no posts, or only replies and reposts among the latest).
  return failure(404, "No recent posts");
}

/** Turns the username lookup's outcome into the numeric id, or the answer to give instead. */
export function shapeUserLookup(upstream: Upstream, nowMs: number): { id: string } | Shaped {
  const transport = shapeTransport(upstream, nowMs);
  if (isShaped(transport)) return transport;
  const data = isRecord(transport.payload) ? transport.payload.data : undefined;
  const id = isRecord(data) ? data.id : undefined;
  if (typeof id === "string" && /^\d{1,19}$/.test(id)) return { id };
  const problem = problemSummary(transport.payload);
  return failure(502, problem ? `X API reported: ${problem}` : "X API user lookup returned no id");
}

/**
 * When the X API fails (any 5xx shaped above), an earlier post, if recent enough, is served instead and
 * cached only briefly so a later visitor tries again. A 404 "no recent posts" is a real answer and passes.
 */
export function withStaleFallback(fresh: Shaped, cached: CachedText | null, nowMs: number): Shaped {
  if (fresh.status < 500 || !cached) return fresh;
  if (nowMs - cached.fetchedAt > STALE_FOR_MS) return fresh;
  const retry = Number(fresh.headers["Retry-After"]);
  return success(cachedPost(cached), Number.isFinite(retry) && retry > 0 ? Math.min(retry, 60) : 60);
}

/** The isolate's copy while it is fresh, with a max-age that runs out when it does; otherwise null. */
export function fromCache(cached: CachedText | null, nowMs: number): Shaped | null {
  if (!cached) return null;
  const age = nowMs - cached.fetchedAt;
  if (age < 0 || age >= FRESH_FOR_MS) return null;
  return success(cachedPost(cached), Math.max(1, Math.floor((FRESH_FOR_MS - age) / 1000)));
}
