/**
 * Supabase Edge Function (Deno): the owner's latest post, as `{ text, url?, source?, createdAt? }`, or `{ error }`
 * with a non-2xx status. The secrets choose the source: LATEST_POST_BLUESKY (handle or DID) and/or
 * LATEST_POST_MASTODON (profile URL), read without any account; otherwise X with X_BEARER_TOKEN (app-only bearer
 * token) and X_USER_ID (numeric id or @handle). BLUESKY_API_URL, X_API_BASE_URL and X_TIMEOUT_MS exist for the
 * tests, which run this file under Deno against fake services on loopback.
 *
 * All decisions live in shape.ts and ../_shared/latest-post (the same code the site runs without Supabase); this
 * file only does I/O.
 */
import { type SocialSources, fetchSocialPost, readSocialSources } from "../_shared/latest-post/fetch-latest.ts";
import {
  type CachedText,
  type Config,
  type Shaped,
  type Upstream,
  apiBase,
  fromCache,
  isTextBody,
  readConfig,
  shapeOutcome,
  shapeTimeline,
  shapeUserLookup,
  timelineUrl,
  upstreamTimeoutMs,
  userLookupUrl,
  withStaleFallback,
} from "./shape.ts";

// Well under the platform's wall-clock limit, so a slow X answer still ends in our own 504.
const UPSTREAM_TIMEOUT_MS = upstreamTimeoutMs(Deno.env.get("X_TIMEOUT_MS"), 8_000);
const X_API = apiBase(Deno.env.get("X_API_BASE_URL"));

const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "authorization, x-client-info, apikey, content-type",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
};

// A warm isolate serves many requests; keeping the last post spares the X API's small rate limit.
let cached: CachedText | null = null;
let resolvedUserId: string | null = null;
// Concurrent visitors share one upstream call instead of each spending a request.
let inflight: Promise<Shaped> | null = null;

async function callX(url: string, token: string): Promise<Upstream> {
  try {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
    return {
      kind: "response",
      status: response.status,
      body: await response.text(),
      rateLimitReset: response.headers.get("x-rate-limit-reset"),
    };
  } catch (error) {
    const aborted = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return aborted ? { kind: "timeout" } : { kind: "network-error" };
  }
}

async function userId(config: Config): Promise<string | Shaped> {
  if (config.user.kind === "id") return config.user.id;
  if (resolvedUserId) return resolvedUserId;
  const lookup = shapeUserLookup(await callX(userLookupUrl(config.user.username, X_API), config.token), Date.now());
  if ("status" in lookup) return lookup;
  resolvedUserId = lookup.id;
  return lookup.id;
}

async function fetchLatest(config: Config): Promise<Shaped> {
  const id = await userId(config);
  if (typeof id !== "string") return withStaleFallback(id, cached, Date.now());
  const fresh = shapeTimeline(await callX(timelineUrl(id, X_API), config.token), Date.now());
  if (isTextBody(fresh.body)) cached = { ...fresh.body, fetchedAt: Date.now() };
  return withStaleFallback(fresh, cached, Date.now());
}

async function fetchSocial(sources: SocialSources): Promise<Shaped> {
  const fresh = shapeOutcome(await fetchSocialPost(sources, { fetch, timeoutMs: UPSTREAM_TIMEOUT_MS }));
  if (isTextBody(fresh.body)) cached = { ...fresh.body, fetchedAt: Date.now() };
  return withStaleFallback(fresh, cached, Date.now());
}

/** What to call on a miss, or the answer when the secrets are wrong. Bluesky / Mastodon, when set, go before X. */
function chooseFetch(): (() => Promise<Shaped>) | Shaped {
  const social = readSocialSources({
    LATEST_POST_BLUESKY: Deno.env.get("LATEST_POST_BLUESKY"),
    LATEST_POST_MASTODON: Deno.env.get("LATEST_POST_MASTODON"),
    BLUESKY_API_URL: Deno.env.get("BLUESKY_API_URL"),
  });
  if (social && "error" in social) {
    return { status: 500, body: { error: social.error }, headers: { "Cache-Control": "no-store" } };
  }
  if (social) return () => fetchSocial(social);
  const config = readConfig({ X_BEARER_TOKEN: Deno.env.get("X_BEARER_TOKEN"), X_USER_ID: Deno.env.get("X_USER_ID") });
  if ("status" in config) return config;
  return () => fetchLatest(config);
}

async function latestPost(): Promise<Shaped> {
  const fetchFresh = chooseFetch();
  if (typeof fetchFresh !== "function") return fetchFresh;
  const hit = fromCache(cached, Date.now());
  if (hit) return hit;
  inflight ??= fetchFresh().finally(() => {
    inflight = null;
  });
  return inflight;
}

function respond(shaped: Shaped): Response {
  if (!isTextBody(shaped.body)) console.error(`get-latest-tweet: ${shaped.status} ${shaped.body.error}`);
  return new Response(JSON.stringify(shaped.body), {
    status: shaped.status,
    headers: { ...CORS_HEADERS, ...shaped.headers, "Content-Type": "application/json; charset=utf-8" },
  });
}

Deno.serve(async (request: Request): Promise<Response> => {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
  if (request.method !== "GET" && request.method !== "POST") {
    return respond({ status: 405, body: { error: "Method not allowed" }, headers: { Allow: "GET, POST, OPTIONS" } });
  }
  try {
    return respond(await latestPost());
  } catch (error) {
    // Never let an unexpected throw turn into the platform's non-JSON error page.
    console.error("get-latest-tweet: unexpected failure", error);
    return respond({ status: 500, body: { error: "Unexpected failure" }, headers: { "Cache-Control": "no-store" } });
  }
});
