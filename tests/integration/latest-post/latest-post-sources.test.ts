// The shared reader of Bluesky and Mastodon (supabase/functions/_shared/latest-post/fetch-latest.ts) with the real
// fetch against loopback fakes of both services: what the site and the edge function both run.
import { beforeEach, describe, expect, it } from "vitest";
import { callSocialSources } from "~/latest-post/social-call.server";
import { RetryLater } from "~/latest-post/swr-cache.server";
import {
  fetchSocialPost,
  readSocialSources,
  type SocialSources,
} from "../../../supabase/functions/_shared/latest-post/fetch-latest";
import { expectedPost as blueskyPost, OWNER_DID, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";
import { expectedPost as mastodonPost, statuses } from "../../fixtures/latest-post/mastodon";
import { fakeSocialsForAll } from "../../support/fakes/socials";

const TIMEOUT_MS = 400;

const socials = fakeSocialsForAll();

beforeEach(() => {
  socials.bluesky.behave({ kind: "feed" });
  socials.mastodon.behave({ kind: "statuses" });
  socials.bluesky.requests.length = 0;
  socials.mastodon.requests.length = 0;
});

function sources(env: { LATEST_POST_BLUESKY?: string; LATEST_POST_MASTODON?: string }): SocialSources {
  const read = readSocialSources({ ...env, BLUESKY_API_URL: socials.bluesky.url });
  if (!read || "error" in read) throw new Error(`bad test sources: ${JSON.stringify(read)}`);
  return read;
}

const read = (env: Parameters<typeof sources>[0]) => fetchSocialPost(sources(env), { fetch, timeoutMs: TIMEOUT_MS });

describe("Bluesky", () => {
  it("reads the owner's newest own post from getAuthorFeed, by handle or DID", async () => {
    expect(await read({ LATEST_POST_BLUESKY: OWNER_HANDLE })).toEqual({ ok: true, post: blueskyPost });
    expect(await read({ LATEST_POST_BLUESKY: OWNER_DID })).toEqual({ ok: true, post: blueskyPost });
    expect(socials.bluesky.requests).toHaveLength(2);
    const asked = new URL(socials.bluesky.requests[0]!, socials.bluesky.url);
    expect(asked.pathname).toBe("/xrpc/app.bsky.feed.getAuthorFeed");
    expect(asked.searchParams.get("filter")).toBe("posts_no_replies");
  });

  it("an unknown handle is a failure naming it", async () => {
    expect(await read({ LATEST_POST_BLUESKY: "nobody.example.com" })).toEqual({
      ok: false,
      kind: "not-found",
      cause: "Bluesky has no account nobody.example.com (Profile not found)",
    });
  });

  it("a 429 says when to retry, from the ratelimit-reset header", async () => {
    socials.bluesky.behave({ kind: "rate-limited", resetInSeconds: 120 });
    const outcome = await read({ LATEST_POST_BLUESKY: OWNER_HANDLE });
    expect(outcome).toMatchObject({ ok: false, kind: "rate-limited" });
    expect(outcome.ok ? 0 : outcome.retryAfterSeconds).toBeGreaterThanOrEqual(118);
    expect(outcome.ok ? 0 : outcome.retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it("a 500 and a feed without posts to show are failures", async () => {
    socials.bluesky.behave({ kind: "status", status: 500 });
    expect(await read({ LATEST_POST_BLUESKY: OWNER_HANDLE })).toEqual({
      ok: false,
      kind: "upstream",
      cause: "Bluesky answered HTTP 500: InternalServerError: Internal Server Error",
    });
    socials.bluesky.behave({ kind: "feed", body: { feed: [] } });
    expect(await read({ LATEST_POST_BLUESKY: OWNER_HANDLE })).toMatchObject({ ok: false, kind: "no-post" });
  });

  it("an answer past 2 MB is refused without reading it all", async () => {
    socials.bluesky.behave({ kind: "feed", body: { feed: [], padding: "x".repeat(2_100_000) } });
    expect(await read({ LATEST_POST_BLUESKY: OWNER_HANDLE })).toEqual({
      ok: false,
      kind: "upstream",
      cause: "Bluesky answered more than 2000000 bytes",
    });
  });

  it("a hang ends at the time box", async () => {
    socials.bluesky.behave({ kind: "hang" });
    const started = performance.now();
    const outcome = await read({ LATEST_POST_BLUESKY: OWNER_HANDLE });
    const took = performance.now() - started;
    expect(outcome).toEqual({ ok: false, kind: "timeout", cause: `Bluesky gave no answer within ${TIMEOUT_MS} ms` });
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TIMEOUT_MS + 1_000);
  });
});

describe("Mastodon", () => {
  it("looks the account up, then reads its statuses without replies and boosts", async () => {
    expect(await read({ LATEST_POST_MASTODON: socials.mastodon.profileUrl })).toEqual({ ok: true, post: mastodonPost });
    expect(socials.mastodon.requests[0]).toBe("/api/v1/accounts/lookup?acct=alex");
    expect(socials.mastodon.requests[1]).toMatch(
      /^\/api\/v1\/accounts\/\d+\/statuses\?exclude_replies=true&exclude_reblogs=true/,
    );
  });

  it("an unknown account, a 429 with its ISO reset, a 500 and a hang are failures", async () => {
    expect(await read({ LATEST_POST_MASTODON: `${socials.mastodon.url}/@nobody` })).toMatchObject({
      ok: false,
      kind: "not-found",
    });
    socials.mastodon.behave({ kind: "rate-limited", resetInSeconds: 300 });
    const limited = await read({ LATEST_POST_MASTODON: socials.mastodon.profileUrl });
    expect(limited).toMatchObject({ ok: false, kind: "rate-limited" });
    expect(limited.ok ? 0 : limited.retryAfterSeconds).toBeGreaterThanOrEqual(298);
    socials.mastodon.behave({ kind: "status", status: 500 });
    expect(await read({ LATEST_POST_MASTODON: socials.mastodon.profileUrl })).toMatchObject({
      ok: false,
      kind: "upstream",
    });
    socials.mastodon.behave({ kind: "hang" });
    expect(await read({ LATEST_POST_MASTODON: socials.mastodon.profileUrl })).toMatchObject({
      ok: false,
      kind: "timeout",
    });
  });
});

describe("both sources", () => {
  it("the newer post wins, and one failing source leaves the other's post", async () => {
    const newer = structuredClone(statuses);
    const last = newer.find((status) => status.content === "<p>An older thought.</p>")!;
    last.created_at = "2026-11-23T23:00:00.000Z";
    socials.mastodon.behave({ kind: "statuses", body: newer });
    const both = { LATEST_POST_BLUESKY: OWNER_HANDLE, LATEST_POST_MASTODON: socials.mastodon.profileUrl };
    expect(await read(both)).toMatchObject({ ok: true, post: { text: "An older thought.", source: "Mastodon" } });
    socials.mastodon.behave({ kind: "status", status: 500 });
    expect(await read(both)).toEqual({ ok: true, post: blueskyPost });
    socials.bluesky.behave({ kind: "rate-limited", resetInSeconds: 60 });
    const neither = await read(both);
    expect(neither).toMatchObject({ ok: false, kind: "rate-limited" });
    expect(neither.ok ? "" : neither.cause).toMatch(/^Bluesky is rate limiting .*; Mastodon answered HTTP 500/);
  });
});

describe("the site's call (no Supabase)", () => {
  it("logs one line 'Failed to fetch tweet: <cause>' per failure, and answers null", async () => {
    const lines: string[] = [];
    socials.bluesky.behave({
      kind: "status",
      status: 500,
      body: { error: "Boom\nwith a second line", message: "x".repeat(500) },
    });
    expect(
      await callSocialSources(sources({ LATEST_POST_BLUESKY: OWNER_HANDLE }), TIMEOUT_MS, (l) => lines.push(l)),
    ).toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Failed to fetch tweet: Bluesky answered HTTP 500: Boom with a second line: x+/);
    expect(lines[0]!.length).toBeLessThanOrEqual("Failed to fetch tweet: ".length + 300);
  });

  it("on a 429, logs the line and rejects with RetryLater until the reset, for the cache", async () => {
    const lines: string[] = [];
    socials.bluesky.behave({ kind: "rate-limited", resetInSeconds: 120 });
    const call = callSocialSources(sources({ LATEST_POST_BLUESKY: OWNER_HANDLE }), TIMEOUT_MS, (l) => lines.push(l));
    const error = await call.then(
      () => null,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(RetryLater);
    expect((error as RetryLater).ms).toBeGreaterThanOrEqual(118_000);
    expect((error as RetryLater).ms).toBeLessThanOrEqual(121_000);
    expect(lines).toEqual([expect.stringMatching(/^Failed to fetch tweet: Bluesky is rate limiting \(HTTP 429\)/)]);
  });

  it("answers the post and logs nothing on success", async () => {
    const lines: string[] = [];
    const post = await callSocialSources(sources({ LATEST_POST_BLUESKY: OWNER_HANDLE }), TIMEOUT_MS, (l) =>
      lines.push(l),
    );
    expect(post).toEqual(blueskyPost);
    expect(lines).toEqual([]);
  });
});
