/**
 * Reads the configured sources (Bluesky, Mastodon, or both: the newer post wins) with the standard `fetch`, which
 * Node and Deno both have, and turns every answer into an Outcome. Never throws; every call is bounded by one
 * deadline.
 */
import { authorFeedUrl, blueskyApiBase, parseBlueskyActor, pickBlueskyPost } from "./bluesky.ts";
import {
  type MastodonProfile,
  accountIdFrom,
  accountLookupUrl,
  accountStatusesUrl,
  parseMastodonProfile,
  pickMastodonStatus,
} from "./mastodon.ts";
import { type Failure, type FailureKind, type Outcome, isRecord, newest, secondsUntilReset } from "./post.ts";

export interface SocialSources {
  bluesky?: string;
  mastodon?: MastodonProfile;
  blueskyApi: string;
}

export type FetchLike = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string> },
) => Promise<Response>;

export interface FetchOptions {
  fetch: FetchLike;
  /** How long all the calls for one answer may take together. */
  timeoutMs: number;
  now?: () => number;
}

/** An answer larger than this is not a feed page: refused unread. */
const MAX_BODY_BYTES = 2_000_000;

/**
 * The sources named by LATEST_POST_BLUESKY, LATEST_POST_MASTODON and BLUESKY_API_URL; null when none is set.
 * A value that does not parse is reported, so a typo is not a silently missing card.
 */
export function readSocialSources(env: {
  LATEST_POST_BLUESKY?: string;
  LATEST_POST_MASTODON?: string;
  BLUESKY_API_URL?: string;
}): SocialSources | { error: string } | null {
  const blueskyRaw = env.LATEST_POST_BLUESKY?.trim();
  const mastodonRaw = env.LATEST_POST_MASTODON?.trim();
  if (!blueskyRaw && !mastodonRaw) return null;
  const bluesky = blueskyRaw ? parseBlueskyActor(blueskyRaw) : undefined;
  if (bluesky === null) return { error: "LATEST_POST_BLUESKY must be a Bluesky handle or DID" };
  const mastodon = mastodonRaw ? parseMastodonProfile(mastodonRaw) : undefined;
  if (mastodon === null) return { error: "LATEST_POST_MASTODON must be a Mastodon profile URL" };
  return {
    ...(bluesky ? { bluesky } : {}),
    ...(mastodon ? { mastodon } : {}),
    blueskyApi: blueskyApiBase(env.BLUESKY_API_URL),
  };
}

const fail = (kind: FailureKind, cause: string, retryAfterSeconds?: number): Failure => ({
  ok: false,
  kind,
  cause,
  ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** The body as text, or null (and the rest left unread) once it grows past `limit` bytes. */
async function readCapped(response: Response, limit: number): Promise<string | null> {
  if (Number(response.headers.get("content-length")) > limit || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return response.body ? null : "";
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

type Json = { ok: true; payload: unknown } | { ok: false; status?: number; payload?: unknown; failure: Failure };

async function getJson(service: string, url: string, signal: AbortSignal, options: FetchOptions): Promise<Json> {
  let response: Response;
  try {
    response = await options.fetch(url, { signal, headers: { Accept: "application/json" } });
  } catch (error) {
    if (signal.aborted)
      return { ok: false, failure: fail("timeout", `${service} gave no answer within ${options.timeoutMs} ms`) };
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ok: false, failure: fail("network", `could not reach ${service} (${detail})`) };
  }
  let body: string | null;
  try {
    body = await readCapped(response, MAX_BODY_BYTES);
  } catch (error) {
    const kind = signal.aborted ? "timeout" : "network";
    const why = signal.aborted
      ? `gave no answer within ${options.timeoutMs} ms`
      : `broke off its answer (${errorName(error)})`;
    return { ok: false, failure: fail(kind, `${service} ${why}`) };
  }
  if (body === null) {
    return { ok: false, failure: fail("upstream", `${service} answered more than ${MAX_BODY_BYTES} bytes`) };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = undefined;
  }
  const status = response.status;
  if (status === 429) {
    const reset = response.headers.get("ratelimit-reset") ?? response.headers.get("x-ratelimit-reset");
    const wait = secondsUntilReset(reset, (options.now ?? Date.now)());
    return {
      ok: false,
      status,
      failure: fail("rate-limited", `${service} is rate limiting (HTTP 429), retry in ${wait} s`, wait),
    };
  }
  if (status < 200 || status > 299) {
    const why = isRecord(payload) ? [payload.error, payload.message].filter((part) => typeof part === "string") : [];
    const detail = why.length > 0 ? `: ${why.join(": ").slice(0, 200)}` : "";
    return { ok: false, status, payload, failure: fail("upstream", `${service} answered HTTP ${status}${detail}`) };
  }
  if (payload === undefined)
    return { ok: false, status, failure: fail("upstream", `${service} answered something that is not JSON`) };
  return { ok: true, payload };
}

async function fromBluesky(actor: string, base: string, signal: AbortSignal, options: FetchOptions): Promise<Outcome> {
  const answer = await getJson("Bluesky", authorFeedUrl(actor, base), signal, options);
  if (!answer.ok) {
    // An unknown handle or DID is a 400 InvalidRequest "Profile not found" from the AppView.
    const message = isRecord(answer.payload) ? answer.payload.message : undefined;
    if (answer.status === 400 && typeof message === "string" && /not found/i.test(message)) {
      return fail("not-found", `Bluesky has no account ${actor} (${message.slice(0, 100)})`);
    }
    return answer.failure;
  }
  if (!isRecord(answer.payload) || !Array.isArray(answer.payload.feed)) {
    return fail("upstream", "Bluesky answered without a feed");
  }
  const post = pickBlueskyPost(answer.payload, actor);
  return post ? { ok: true, post } : fail("no-post", `no post of ${actor} to show among the latest on Bluesky`);
}

async function fromMastodon(profile: MastodonProfile, signal: AbortSignal, options: FetchOptions): Promise<Outcome> {
  const account = `@${profile.username} on ${profile.origin}`;
  const lookup = await getJson("Mastodon", accountLookupUrl(profile), signal, options);
  if (!lookup.ok) {
    return lookup.status === 404 ? fail("not-found", `Mastodon has no account ${account}`) : lookup.failure;
  }
  const id = accountIdFrom(lookup.payload);
  if (!id) return fail("upstream", "Mastodon's account lookup answered without an id");
  const statuses = await getJson("Mastodon", accountStatusesUrl(profile, id), signal, options);
  if (!statuses.ok) return statuses.failure;
  if (!Array.isArray(statuses.payload)) return fail("upstream", "Mastodon answered without a list of statuses");
  const post = pickMastodonStatus(statuses.payload, id);
  return post ? { ok: true, post } : fail("no-post", `no post of ${account} to show among the latest`);
}

/** The newest post among the configured sources; with both, one failing still lets the other's post through. */
export async function fetchSocialPost(sources: SocialSources, options: FetchOptions): Promise<Outcome> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const calls: Promise<Outcome>[] = [];
  if (sources.bluesky) calls.push(fromBluesky(sources.bluesky, sources.blueskyApi, signal, options));
  if (sources.mastodon) calls.push(fromMastodon(sources.mastodon, signal, options));
  const outcomes = await Promise.all(
    calls.map((call) => call.catch((error: unknown) => fail("upstream", `unexpected failure (${errorName(error)})`))),
  );
  const post = newest(outcomes.flatMap((outcome) => (outcome.ok ? [outcome.post] : [])));
  if (post) return { ok: true, post };
  const failures = outcomes.filter((outcome): outcome is Failure => !outcome.ok);
  const first = failures[0] ?? fail("no-post", "no source is configured");
  if (failures.length < 2) return first;
  const waits = failures.map((failure) => failure.retryAfterSeconds ?? 0);
  const wait = Math.max(...waits);
  return fail(first.kind, failures.map((failure) => failure.cause).join("; "), wait > 0 ? wait : undefined);
}
