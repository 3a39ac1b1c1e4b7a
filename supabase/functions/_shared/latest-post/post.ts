/**
 * The latest-post answer and the checks every source shares. Plain TypeScript with no Node, Deno or package
 * imports: the site (Node) and the get-latest-tweet edge function (Deno) both run this same code, so both pick and
 * shape the same post.
 */

export type PostSource = "Bluesky" | "Mastodon" | "X";

/** What the site shows: the text, and where it came from when known. Old answers carry only `text`. */
export interface LatestPostBody {
  text: string;
  /** The post itself (an http(s) address), for the card's link. */
  url?: string;
  source?: PostSource;
  /** ISO 8601, when the post was written. */
  createdAt?: string;
}

export type FailureKind = "not-found" | "no-post" | "rate-limited" | "timeout" | "network" | "upstream";

export interface Failure {
  ok: false;
  kind: FailureKind;
  /** For logs: one short sentence, never shown to visitors. */
  cause: string;
  /** Set on a 429: when the service said it will answer again. */
  retryAfterSeconds?: number;
}

export type Outcome = { ok: true; post: LatestPostBody } | Failure;

export const POST_SOURCES: readonly PostSource[] = ["Bluesky", "Mastodon", "X"];

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The address when it is an absolute http(s) URL (so never `javascript:` in the card's link), else null. */
export function webUrl(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > 2_000) return null;
  try {
    const url = new URL(raw);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** The instant as ISO 8601 when the value is a date the services write (RFC 3339), else null. */
export function isoDate(raw: unknown): string | null {
  if (typeof raw !== "string" || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) return null;
  const time = Date.parse(raw);
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

export function isPostSource(value: unknown): value is PostSource {
  return typeof value === "string" && (POST_SOURCES as readonly string[]).includes(value);
}

/**
 * The newest of the candidates by `createdAt`; on a tie (or without dates) the earlier one in the service's own
 * order, which is newest first.
 */
export function newest<T extends { createdAt?: string }>(candidates: T[]): T | null {
  let best: T | null = null;
  for (const candidate of candidates) {
    if (!best) best = candidate;
    else if ((candidate.createdAt ?? "") > (best.createdAt ?? "")) best = candidate;
  }
  return best;
}

/**
 * Seconds until a rate limit lifts, from a reset header: epoch seconds (Bluesky's `ratelimit-reset`) or an
 * ISO 8601 instant (Mastodon's `X-RateLimit-Reset`). Bounded to [1, 900]; 60 when absent or unreadable.
 */
export function secondsUntilReset(reset: string | null | undefined, nowMs: number): number {
  const value = reset?.trim() ?? "";
  let atMs = NaN;
  if (/^\d{1,12}$/.test(value)) atMs = Number(value) * 1000;
  else if (/^\d{4}-\d{2}-\d{2}T/.test(value)) atMs = Date.parse(value);
  if (!Number.isFinite(atMs)) return 60;
  return Math.min(900, Math.max(1, Math.ceil((atMs - nowMs) / 1000)));
}
