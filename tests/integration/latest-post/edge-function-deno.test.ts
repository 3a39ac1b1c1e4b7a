// The get-latest-tweet edge function, run for real under Deno against a fake X API on loopback: what it answers,
// and the whole way from the site to the card.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EdgeFunction, startEdgeFunction } from "../../support/edge-function";
import { type FakeXApi, startFakeXApi } from "../../support/fakes/x-api";
import { startServer } from "../../support/production-server";

const TOKEN = "test-bearer-token";
const X_TIMEOUT_MS = 700;

let x: FakeXApi;
let running: EdgeFunction[] = [];

beforeAll(async () => {
  x = await startFakeXApi();
});

afterAll(async () => {
  await x?.close();
});

afterEach(async () => {
  await Promise.all(running.map((fn) => fn.stop()));
  running = [];
  x.requests.length = 0;
});

/** A fresh isolate (its own post cache) of the function, talking to the fake X API. */
async function edgeFunction(env: Record<string, string> = {}): Promise<EdgeFunction> {
  const fn = await startEdgeFunction({
    X_BEARER_TOKEN: TOKEN,
    X_USER_ID: "2244994945",
    X_API_BASE_URL: x.base,
    X_TIMEOUT_MS: String(X_TIMEOUT_MS),
    ...env,
  });
  running.push(fn);
  return fn;
}

/** What the site's supabase-js sends: a POST to /functions/v1/get-latest-tweet with the anon key. */
const invoke = (fn: EdgeFunction, init: RequestInit = {}) =>
  fetch(`${fn.url}/functions/v1/get-latest-tweet`, {
    method: "POST",
    headers: { authorization: "Bearer anon", apikey: "anon" },
    ...init,
  });

describe("get-latest-tweet under Deno", () => {
  it("answers 200 { text } with the newest post, asking X with the bearer token", async () => {
    x.behave({ kind: "posts", texts: ["Shipped the landing page &amp; the pricing.", "An older post."] });
    const fn = await edgeFunction();
    const response = await invoke(fn);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual({ text: "Shipped the landing page & the pricing." });
    expect(x.requests).toHaveLength(1);
    expect(x.requests[0]!.path).toMatch(/^\/2\/users\/2244994945\/tweets\?/);
    expect(x.requests[0]!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("answers a second call inside its cache time from memory: one call to X", async () => {
    x.behave({ kind: "posts", texts: ["Cached once."] });
    const fn = await edgeFunction();
    const first = await invoke(fn);
    const second = await invoke(fn);
    expect(await first.json()).toEqual({ text: "Cached once." });
    expect(await second.json()).toEqual({ text: "Cached once." });
    expect(second.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(x.requests).toHaveLength(1);
  });

  it("turns X's 429 with a reset time into a clear error with Retry-After", async () => {
    const resetIn = 120;
    x.behave({
      kind: "status",
      status: 429,
      body: { title: "Too Many Requests", detail: "Too Many Requests", status: 429 },
      headers: { "x-rate-limit-reset": String(Math.floor(Date.now() / 1000) + resetIn) },
    });
    const fn = await edgeFunction();
    const response = await invoke(fn);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "Rate limited by the X API" });
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(resetIn - 10);
    expect(retryAfter).toBeLessThanOrEqual(resetIn + 1);
  });

  it("turns X's 401 into a clear error about the credentials", async () => {
    x.behave({ kind: "status", status: 401, body: { title: "Unauthorized", detail: "Unauthorized", status: 401 } });
    const fn = await edgeFunction();
    const response = await invoke(fn);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "X API refused the credentials (401: Unauthorized)" });
  });

  it("answers its own 504 within its time box when X hangs", async () => {
    x.behave({ kind: "hang" });
    const fn = await edgeFunction();
    const started = performance.now();
    const response = await invoke(fn);
    const ms = performance.now() - started;
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: "X API did not answer in time" });
    expect(ms).toBeGreaterThanOrEqual(X_TIMEOUT_MS - 50);
    // Generous: the time box plus a slow, shared machine.
    expect(ms).toBeLessThan(X_TIMEOUT_MS + 3_000);
  });

  it("answers OPTIONS (a browser's preflight) with CORS headers and no call to X", async () => {
    const fn = await edgeFunction();
    const response = await invoke(fn, {
      method: "OPTIONS",
      headers: { origin: "https://example.com", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")).toContain("apikey");
    expect(x.requests).toHaveLength(0);
  });

  it("says which secret is missing instead of calling X", async () => {
    const fn = await edgeFunction({ X_BEARER_TOKEN: "" });
    const response = await invoke(fn);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "X_BEARER_TOKEN is not set" });
    expect(x.requests).toHaveLength(0);
  });
});

describe("the whole way: site → function under Deno → fake X API", () => {
  it("shows the owner's post in the page's card", async () => {
    x.behave({ kind: "posts", texts: ["Day 42: the whole chain works."] });
    const fn = await edgeFunction();
    // The site calls `${SUPABASE_URL}/functions/v1/get-latest-tweet`, which the function answers.
    const site = await startServer({ env: { SUPABASE_URL: fn.url, SUPABASE_ANON_KEY: "anon-key-of-the-test" } });
    try {
      const html = await (await fetch(`${site.url}/`)).text();
      const card = /<section [^>]*aria-labelledby="latest-post-label"[^>]*>.*?<\/section>/s.exec(html)?.[0] ?? "";
      expect(card).toContain("Latest thought");
      expect(card).toContain("Day 42: the whole chain works.");
      expect(x.requests).toHaveLength(1);
    } finally {
      await site.stop();
    }
  });
});
