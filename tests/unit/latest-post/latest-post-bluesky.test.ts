import { describe, expect, it } from "vitest";
import {
  authorFeedUrl,
  blueskyApiBase,
  blueskyPostUrl,
  parseBlueskyActor,
  pickBlueskyPost,
  restoreLinks,
} from "../../../supabase/functions/_shared/latest-post/bluesky";
import { authorFeed, expectedPost, OWNER_DID, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";

type Item = (typeof authorFeed.feed)[number];
const feedOf = (...items: unknown[]) => ({ feed: items });
const textOf = (item: Item) => item.post.record.text;
const find = (text: string) => authorFeed.feed.find((item) => textOf(item).startsWith(text))!;
const older = find("An older thought.");

describe("pickBlueskyPost", () => {
  it("picks the owner's newest own post, links restored, with its bsky.app address", () => {
    expect(pickBlueskyPost(authorFeed, OWNER_HANDLE)).toEqual(expectedPost);
    expect(pickBlueskyPost(authorFeed, OWNER_DID)).toEqual(expectedPost);
  });

  it.each([
    ["a pinned older post", "Pinned: who I am"],
    ["a repost of someone else", "Someone else's words."],
    ["a reply", "Thanks, glad you like it!"],
    ["a post labelled by a moderation service", "A post the labeller flagged."],
    ["a self-labelled post (content warning)", "Behind my own content warning."],
    ["an empty post", ""],
  ])("skips %s", (_rule, text) => {
    const item = authorFeed.feed.find(
      (candidate) => textOf(candidate) === text || (text && textOf(candidate).startsWith(text)),
    )!;
    expect(item).toBeDefined();
    // Alone it shows nothing; in front of an older own post, the older one is shown.
    expect(pickBlueskyPost(feedOf(item), OWNER_HANDLE)).toBeNull();
    expect(pickBlueskyPost(feedOf(item, older), OWNER_HANDLE)?.text).toBe("An older thought.");
  });

  it("skips every post when the owner asked not to be shown to logged-out viewers", () => {
    const optedOut = structuredClone(older);
    (optedOut.post.author.labels as unknown[]).push({
      src: OWNER_DID,
      uri: "at://x",
      val: "!no-unauthenticated",
      cts: "2026-01-01T00:00:00Z",
    });
    expect(pickBlueskyPost(feedOf(optedOut), OWNER_HANDLE)).toBeNull();
  });

  it("shows a long post whole", () => {
    const long = structuredClone(older);
    long.post.record.text = "é".repeat(300);
    expect(pickBlueskyPost(feedOf(long), OWNER_HANDLE)?.text).toBe("é".repeat(300));
  });

  it("answers null for shapes that are not a feed, never throws", () => {
    for (const payload of [
      null,
      1,
      "feed",
      [],
      {},
      { feed: null },
      { feed: [null, 1, "x", { post: null }, { post: { record: 1 } }] },
    ]) {
      expect(pickBlueskyPost(payload, OWNER_HANDLE)).toBeNull();
    }
  });
});

describe("restoreLinks", () => {
  const text = "Déjà 🚀 example.com/a... ok";
  const start = new TextEncoder().encode("Déjà 🚀 ").length; // 12 bytes, 8 UTF-16 units
  const end = start + "example.com/a...".length;
  const link = (uri: string, from = start, to = end) => [
    { index: { byteStart: from, byteEnd: to }, features: [{ $type: "app.bsky.richtext.facet#link", uri }] },
  ];

  it("replaces the shortened link, counting UTF-8 bytes", () => {
    expect(start).toBe(12);
    expect(restoreLinks(text, link("https://example.com/abc/def"))).toBe("Déjà 🚀 https://example.com/abc/def ok");
  });

  it("keeps link words that are not a shortened address, followed by the address", () => {
    const words = "Read this site now";
    const facet = [
      {
        index: { byteStart: 5, byteEnd: 14 },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://example.com/" }],
      },
    ];
    expect(restoreLinks(words, facet)).toBe("Read this site (https://example.com/) now");
  });

  it("ignores facets out of range, overlapping, reversed, or with a non-web URI", () => {
    expect(restoreLinks(text, link("javascript:alert(1)"))).toBe(text);
    expect(restoreLinks(text, link("https://example.com/abc", start, 999))).toBe(text);
    expect(restoreLinks(text, link("https://example.com/abc", end, start))).toBe(text);
    expect(
      restoreLinks(text, [...link("https://example.com/abc"), ...link("https://example.com/abd", start + 1, end)]),
    ).toBe("Déjà 🚀 https://example.com/abc ok");
    expect(restoreLinks(text, "not facets")).toBe(text);
  });
});

describe("addresses and names", () => {
  it("builds the bsky.app address from the post's at:// URI", () => {
    expect(blueskyPostUrl(`at://${OWNER_DID}/app.bsky.feed.post/3k2abc`)).toBe(
      `https://bsky.app/profile/${OWNER_DID}/post/3k2abc`,
    );
    expect(blueskyPostUrl("at://did:plc:x/app.bsky.feed.like/3k2abc")).toBeNull();
    expect(blueskyPostUrl("https://evil.example/")).toBeNull();
  });

  it("takes a handle (with or without @) or a DID, and nothing else", () => {
    expect(parseBlueskyActor("@Alex.Example.com")).toBe("alex.example.com");
    expect(parseBlueskyActor(OWNER_DID)).toBe(OWNER_DID);
    expect(parseBlueskyActor("did:web:alex.example.com")).toBe("did:web:alex.example.com");
    for (const bad of [
      "",
      "alex",
      "https://bsky.app/profile/alex.bsky.social",
      "alex bsky.social",
      "did:plc:short",
      "a..b",
    ]) {
      expect(parseBlueskyActor(bad)).toBeNull();
    }
  });

  it("asks the public AppView for posts without replies and without pins", () => {
    const url = new URL(authorFeedUrl(OWNER_HANDLE));
    expect(url.origin + url.pathname).toBe("https://public.api.bsky.app/xrpc/app.bsky.feed.getAuthorFeed");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      actor: OWNER_HANDLE,
      filter: "posts_no_replies",
      includePins: "false",
    });
    expect(blueskyApiBase("http://127.0.0.1:9/")).toBe("http://127.0.0.1:9");
    expect(blueskyApiBase("ftp://x")).toBe("https://public.api.bsky.app");
  });
});
