// The home page's loader data goes to the browser through turbo-stream 2.4.1 (single fetch), whose decoder builds each
// object by assigning the keys the payload names. Third-party data (the latest post from Bluesky or Mastodon) must
// never decide a key: each post is reshaped into our four fields, and their values alone come from outside. Here the
// sources answer with every object carrying `__proto__`, `constructor` and unknown keys of their own, and the data the
// browser would decode holds none of them.
import { decode, encode } from "turbo-stream";
import { describe, expect, it } from "vitest";
import { latestPostCopy } from "~/content/site";
import { pickBlueskyPost } from "../../../supabase/functions/_shared/latest-post/bluesky";
import { pickMastodonStatus } from "../../../supabase/functions/_shared/latest-post/mastodon";
import { authorFeed, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";
import { ACCOUNT_ID, statuses } from "../../fixtures/latest-post/mastodon";

const HOSTILE_KEYS = ["__proto__", "constructor", "prototype", "injectedKey"];

/** `value` with the hostile keys as own, enumerable keys of every object in it (as JSON.parse would make them). */
function hostile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hostile);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of HOSTILE_KEYS) {
    Object.defineProperty(out, key, {
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  for (const [key, inner] of Object.entries(value)) out[key] = hostile(inner);
  return out;
}

/** Every own key of every object in `value`, however deep. */
function keysIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const key of Object.getOwnPropertyNames(value)) {
      found.add(key);
      keysIn((value as Record<string, unknown>)[key], found);
    }
  }
  return found;
}

/** What the browser gets: the value through turbo-stream's encoder and decoder, as single fetch sends it. */
async function throughTurboStream(value: unknown): Promise<unknown> {
  const decoded = await decode(encode(value));
  await decoded.done;
  return decoded.value;
}

describe("third-party data in the loader data", () => {
  it("hostile keys in the sources' answers are really there (the test's own check)", () => {
    const payload = hostile(authorFeed) as Record<string, unknown>;
    expect(Object.getOwnPropertyNames(payload)).toContain("__proto__");
    expect(keysIn(payload)).toContain("injectedKey");
  });

  it.each([
    ["Bluesky", () => pickBlueskyPost(hostile(authorFeed), OWNER_HANDLE)],
    ["Mastodon", () => pickMastodonStatus(hostile(statuses), ACCOUNT_ID)],
  ])("a post from %s reaches the decoder with our keys only", async (_source, pick) => {
    const post = pick();
    expect(post).not.toBeNull();
    // The home loader's latestPost, as app/routes/_index.tsx returns it.
    const decoded = await throughTurboStream({ latestPost: { post, copy: latestPostCopy } });
    const keys = keysIn(decoded);
    for (const key of HOSTILE_KEYS) expect(keys).not.toContain(key);
    expect([...keysIn(post)].sort()).toEqual(["createdAt", "source", "text", "url"]);
    expect(Object.getPrototypeOf((decoded as { latestPost: { post: object } }).latestPost.post)).toBe(Object.prototype);
  });
});
