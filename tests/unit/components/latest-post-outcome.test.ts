import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LatestPostCard } from "~/components/latest-post-card";
import { latestPostCopy } from "~/content/site";
import { readSocialSources } from "../../../supabase/functions/_shared/latest-post/fetch-latest";
import { isoDate, newest, secondsUntilReset, webUrl } from "../../../supabase/functions/_shared/latest-post/post";
import { shapeOutcome } from "../../../supabase/functions/get-latest-tweet/shape";
import { dockerIgnores } from "../../support/dockerfile";

const NOW = Date.parse("2026-11-24T12:00:00Z");

describe("shared checks", () => {
  it("reads a rate limit's reset as epoch seconds or an ISO instant, bounded", () => {
    expect(secondsUntilReset(String(NOW / 1000 + 90), NOW)).toBe(90);
    expect(secondsUntilReset("2026-11-24T12:02:00.000Z", NOW)).toBe(120);
    expect(secondsUntilReset(String(NOW / 1000 - 10), NOW)).toBe(1);
    expect(secondsUntilReset(String(NOW / 1000 + 86_400), NOW)).toBe(900);
    expect(secondsUntilReset("soon", NOW)).toBe(60);
    expect(secondsUntilReset(null, NOW)).toBe(60);
  });

  it("lets only http(s) addresses and real dates through", () => {
    expect(webUrl("https://bsky.app/profile/x")).toBe("https://bsky.app/profile/x");
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "//example.com", "", 1, null])
      expect(webUrl(bad)).toBeNull();
    expect(isoDate("2026-11-20T10:00:00Z")).toBe("2026-11-20T10:00:00.000Z");
    expect(isoDate("yesterday")).toBeNull();
  });

  it("picks the newest by date, the first on a tie", () => {
    expect(
      newest([
        { createdAt: "2026-01-01", n: 1 },
        { createdAt: "2026-02-01", n: 2 },
        { createdAt: "2026-02-01", n: 3 },
      ])?.n,
    ).toBe(2);
    expect(newest([])).toBeNull();
  });

  it("reads the sources from the environment, refusing values that do not parse", () => {
    expect(readSocialSources({})).toBeNull();
    expect(readSocialSources({ LATEST_POST_BLUESKY: "alex.bsky.social" })).toEqual({
      bluesky: "alex.bsky.social",
      blueskyApi: "https://public.api.bsky.app",
    });
    expect(
      readSocialSources({
        LATEST_POST_MASTODON: "https://mastodon.social/@alex",
        BLUESKY_API_URL: "http://127.0.0.1:1/",
      }),
    ).toEqual({
      mastodon: { origin: "https://mastodon.social", username: "alex" },
      blueskyApi: "http://127.0.0.1:1",
    });
    expect(readSocialSources({ LATEST_POST_BLUESKY: "not a handle" })).toEqual({
      error: expect.stringContaining("LATEST_POST_BLUESKY"),
    });
    expect(readSocialSources({ LATEST_POST_MASTODON: "http://mastodon.social/@alex" })).toEqual({
      error: expect.stringContaining("LATEST_POST_MASTODON"),
    });
  });
});

describe("the edge function's answer for a Bluesky / Mastodon outcome", () => {
  const post = {
    text: "Hi",
    url: "https://bsky.app/profile/did:plc:x/post/1",
    source: "Bluesky" as const,
    createdAt: "2026-11-20T10:00:00.000Z",
  };

  it("answers the post with the same statuses as the X path", () => {
    expect(shapeOutcome({ ok: true, post })).toEqual({
      status: 200,
      body: post,
      headers: { "Cache-Control": "public, max-age=300" },
    });
    expect(shapeOutcome({ ok: false, kind: "no-post", cause: "none" }).status).toBe(404);
    expect(shapeOutcome({ ok: false, kind: "not-found", cause: "no such account" }).status).toBe(502);
    expect(shapeOutcome({ ok: false, kind: "upstream", cause: "HTTP 500" }).status).toBe(502);
    expect(shapeOutcome({ ok: false, kind: "timeout", cause: "slow" }).status).toBe(504);
    const limited = shapeOutcome({ ok: false, kind: "rate-limited", cause: "429", retryAfterSeconds: 42 });
    expect(limited).toMatchObject({ status: 503, headers: { "Retry-After": "42", "Cache-Control": "no-store" } });
  });
});

describe("LatestPostCard", () => {
  const profile = { href: "https://bsky.app/profile/alex.example.com", label: "Bluesky" };
  const render = (post: Parameters<typeof LatestPostCard>[0]["post"]) =>
    renderToStaticMarkup(createElement(LatestPostCard, { post, profile, copy: latestPostCopy }));

  it("renders the text as text, names the source and links to the post", () => {
    const html = render({
      text: '<script>alert("x")</script> & co',
      url: "https://bsky.app/profile/did:plc:x/post/1",
      source: "Bluesky",
    });
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co");
    expect(html).not.toContain("<script>");
    expect(html).toContain(">On Bluesky</p>");
    expect(html).toContain('href="https://bsky.app/profile/did:plc:x/post/1"');
    expect(html).toContain("Read the post on Bluesky");
    expect(html).toContain("Follow on Bluesky");
  });

  it("shows an old answer ({ text }) as before: no source line, no post link", () => {
    const html = render({ text: "Just text" });
    expect(html).not.toContain("On ");
    expect(html).not.toContain("Read the post");
    expect(html).toContain("Follow on Bluesky");
  });
});

describe("the Docker build context", () => {
  it("holds the shared latest-post code the build imports, and still no other part of supabase/", () => {
    const ignored = dockerIgnores(readFileSync(".dockerignore", "utf8"));
    expect(ignored("supabase/functions/_shared/latest-post/post.ts")).toBe(false);
    expect(ignored("supabase/functions/get-latest-tweet/index.ts")).toBe(true);
    expect(ignored("supabase/migrations/20250925000000_newsletter_subscribers.sql")).toBe(true);
  });
});
