// The get-latest-tweet edge function under Deno with Bluesky / Mastodon secrets, against the same loopback fakes and
// fixtures as the site: it answers the same post the site picks without Supabase, and the whole way to the card.
import { afterEach, describe, expect, it } from "vitest";
import { pickBlueskyPost } from "../../../supabase/functions/_shared/latest-post/bluesky";
import { authorFeed, expectedPost as blueskyPost, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";
import { expectedPost as mastodonPost } from "../../fixtures/latest-post/mastodon";
import { type EdgeFunction, startEdgeFunction } from "../../support/edge-function";
import { fakeSocialsForAll } from "../../support/fakes/socials";
import { startServer } from "../../support/production-server";

const UPSTREAM_TIMEOUT_MS = 700;

const socials = fakeSocialsForAll();
let running: EdgeFunction[] = [];

afterEach(async () => {
  await Promise.all(running.map((fn) => fn.stop()));
  running = [];
  socials.bluesky.behave({ kind: "feed" });
  socials.mastodon.behave({ kind: "statuses" });
  socials.bluesky.requests.length = 0;
  socials.mastodon.requests.length = 0;
});

/** A fresh isolate of the function with these secrets (and no X secrets at all). */
async function edgeFunction(env: Record<string, string>): Promise<EdgeFunction> {
  const fn = await startEdgeFunction({
    X_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    BLUESKY_API_URL: socials.bluesky.url,
    ...env,
  });
  running.push(fn);
  return fn;
}

async function invoke(fn: EdgeFunction): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${fn.url}/functions/v1/get-latest-tweet`, { method: "POST" });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe("Bluesky secret", () => {
  it("answers the same post the site picks, from the same fixture", async () => {
    const fn = await edgeFunction({ LATEST_POST_BLUESKY: OWNER_HANDLE });
    const answer = await invoke(fn);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(blueskyPost);
    expect(answer.body).toEqual(pickBlueskyPost(authorFeed, OWNER_HANDLE));
    // The isolate keeps it: a second visitor costs Bluesky nothing.
    expect((await invoke(fn)).body).toEqual(blueskyPost);
    expect(socials.bluesky.requests).toHaveLength(1);
  });

  it("a 429 is a 503 with Retry-After from the reset header", async () => {
    socials.bluesky.behave({ kind: "rate-limited", resetInSeconds: 90 });
    const answer = await invoke(await edgeFunction({ LATEST_POST_BLUESKY: OWNER_HANDLE }));
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(88);
    expect(Number(answer.headers.get("retry-after"))).toBeLessThanOrEqual(91);
    expect(answer.body).toEqual({ error: expect.stringContaining("Bluesky is rate limiting") });
  });

  it("a 500 is a 502, a hang a 504, an unknown handle a 502 naming it", async () => {
    socials.bluesky.behave({ kind: "status", status: 500 });
    expect((await invoke(await edgeFunction({ LATEST_POST_BLUESKY: OWNER_HANDLE }))).status).toBe(502);
    socials.bluesky.behave({ kind: "hang" });
    const started = performance.now();
    expect((await invoke(await edgeFunction({ LATEST_POST_BLUESKY: OWNER_HANDLE }))).status).toBe(504);
    expect(performance.now() - started).toBeLessThan(UPSTREAM_TIMEOUT_MS + 5_000);
    socials.bluesky.behave({ kind: "feed" });
    const unknown = await invoke(await edgeFunction({ LATEST_POST_BLUESKY: "nobody.example.com" }));
    expect(unknown).toMatchObject({ status: 502, body: { error: expect.stringContaining("nobody.example.com") } });
  });

  it("a secret that does not parse is a 500 naming it", async () => {
    const answer = await invoke(await edgeFunction({ LATEST_POST_BLUESKY: "not a handle" }));
    expect(answer).toMatchObject({ status: 500, body: { error: expect.stringContaining("LATEST_POST_BLUESKY") } });
  });
});

describe("Mastodon secret", () => {
  it("answers the newest own public post as plain text, from the same fixture", async () => {
    const answer = await invoke(await edgeFunction({ LATEST_POST_MASTODON: socials.mastodon.profileUrl }));
    expect(answer).toMatchObject({ status: 200, body: mastodonPost });
    expect(answer.body).toEqual(mastodonPost);
  });
});

describe("the whole way: site → function under Deno → fake Bluesky", () => {
  it("shows the post in the card, linking to its bsky.app address", async () => {
    const fn = await edgeFunction({ LATEST_POST_BLUESKY: OWNER_HANDLE });
    const site = await startServer({ env: { SUPABASE_URL: fn.url, SUPABASE_ANON_KEY: "anon-key-of-the-test" } });
    try {
      const html = await (await fetch(`${site.url}/`)).text();
      const card = /<section [^>]*aria-labelledby="latest-post-label"[^>]*>.*?<\/section>/s.exec(html)?.[0] ?? "";
      expect(card).toContain(">On Bluesky</p>");
      expect(card).toContain("https://example.com/launch-notes/2026?ref=bsky&amp;x=1");
      expect(card).toContain(`href="${blueskyPost.url}"`);
    } finally {
      await site.stop();
    }
  });
});
