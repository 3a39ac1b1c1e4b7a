import { XMLParser } from "fast-xml-parser";
import { beforeAll, describe, expect, it, vi } from "vitest";

// The module reads UPDATES_DIR when it loads: the test folder (published on 1, 10 and 20 October 2025, and a draft).
let feeds: typeof import("~/updates/feed/cache.server");
beforeAll(async () => {
  vi.stubEnv("UPDATES_DIR", "tests/fixtures/updates/site");
  feeds = await import("~/updates/feed/cache.server");
});

const entryIds = (xml: string): string[] =>
  (new XMLParser({ isArray: (name) => name === "entry" }).parse(xml).feed.entry ?? []).map((entry: { id: string }) =>
    entry.id.split("/").pop(),
  );

describe("currentFeed: built once for what it shows", () => {
  it("keeps the same answer while the visible updates are the same, days apart", async () => {
    const { allUpdates } = await import("~/updates/updates.server");
    // As in production: one list read from disk for the whole process.
    const source = allUpdates();
    const first = feeds.feedOf(source, new Date("2025-10-25T10:00:00Z"));
    expect(feeds.feedOf(source, new Date("2025-11-03T10:00:00Z"))).toBe(first);
    expect(entryIds(first.body)).toEqual(["2025-10-20-second-update", "2025-10-10-hostile", "2025-10-01-first-week"]);
    // A list read anew (npm run dev) is built again, with the same validators for the same body.
    const reread = feeds.feedOf(allUpdates(), new Date("2025-11-03T10:00:00Z"));
    expect(reread).not.toBe(first);
    expect([reread.etag, reread.lastModified]).toEqual([first.etag, first.lastModified]);
  });

  it("changes when an update's day begins in Brussels; an identical body keeps its validators", () => {
    const before = feeds.currentFeed(new Date("2025-10-19T21:59:59Z"));
    const after = feeds.currentFeed(new Date("2025-10-19T22:00:00Z"));
    expect(entryIds(before.body)).toEqual(["2025-10-10-hostile", "2025-10-01-first-week"]);
    expect(entryIds(after.body)[0]).toBe("2025-10-20-second-update");
    expect(after.etag).not.toBe(before.etag);
    expect(after.lastModified).toBe("Sun, 19 Oct 2025 22:00:00 GMT");
    const later = feeds.currentFeed(new Date("2025-10-21T08:00:00Z"));
    expect([later.etag, later.lastModified]).toEqual([after.etag, after.lastModified]);
  });
});

describe("notModified", () => {
  const answer = { etag: '"abc"', lastModified: "Sun, 19 Oct 2025 22:00:00 GMT" };
  const ask = (headers: Record<string, string>) => feeds.notModified(new Headers(headers), answer);

  it("If-None-Match: the same tag, weak or in a list, or *", () => {
    expect(ask({ "If-None-Match": '"abc"' })).toBe(true);
    expect(ask({ "If-None-Match": 'W/"abc"' })).toBe(true);
    expect(ask({ "If-None-Match": '"x", "abc"' })).toBe(true);
    expect(ask({ "If-None-Match": "*" })).toBe(true);
    expect(ask({ "If-None-Match": '"abcd"' })).toBe(false);
  });

  it("If-Modified-Since: at or after Last-Modified, and only without If-None-Match", () => {
    expect(ask({ "If-Modified-Since": answer.lastModified })).toBe(true);
    expect(ask({ "If-Modified-Since": "Mon, 20 Oct 2025 00:00:00 GMT" })).toBe(true);
    expect(ask({ "If-Modified-Since": "Sun, 19 Oct 2025 21:59:59 GMT" })).toBe(false);
    expect(ask({ "If-Modified-Since": "yesterday" })).toBe(false);
    expect(ask({ "If-None-Match": '"old"', "If-Modified-Since": "Mon, 20 Oct 2025 00:00:00 GMT" })).toBe(false);
    expect(ask({})).toBe(false);
  });
});
