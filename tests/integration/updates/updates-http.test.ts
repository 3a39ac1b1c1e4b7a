// The updates over real HTTP from the production server, pointed at the test folder (tests/fixtures/updates/site: two
// plain updates, a hostile one and a draft), at an empty folder, and at a bad one.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  serverHarness,
  startServerExpectingFailure,
  tempDir,
  type ServerProcess,
} from "../../support/production-server";

const SITE = "tests/fixtures/updates/site";
const PUBLISHED = ["2025-10-20-second-update", "2025-10-10-hostile", "2025-10-01-first-week"];
const DRAFT = "2025-11-05-secret-draft";

const harness = serverHarness("portfolio-updates-");
let server: ServerProcess;
beforeAll(async () => {
  server = await harness.start({ UPDATES_DIR: SITE });
});
afterAll(() => harness.cleanup());

const get = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), { redirect: "manual", ...init });
const text = async (path: string) => {
  const response = await get(path);
  expect(response.status, path).toBe(200);
  return response.text();
};
/** The update links of a page, in order. */
const updateLinks = (html: string) =>
  [...html.matchAll(/<a href="\/updates\/([^"/]+)"/g)].map((match) => match[1]).filter((name) => name !== "feed.xml");

describe("/updates", () => {
  it("lists the published updates newest first, with date in words, Day N and summary", async () => {
    const response = await get("/updates");
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, max-age=300");
    const html = await response.text();
    expect(updateLinks(html)).toEqual(PUBLISHED);
    expect(html).toContain('<time dateTime="2025-10-20">20 October 2025</time> · Day <!-- -->25');
    expect(html).toContain('<time dateTime="2025-10-01">1 October 2025</time> · Day <!-- -->6');
    expect(html).toContain("The newest published update of the test folder.");
    expect(html).toContain('<link rel="canonical" href="https://example.com/updates"/>');
    expect(html).toContain('<link rel="alternate" type="application/atom+xml"');
    expect(html).toContain("<title>Updates · ");
    expect(html).toContain('popovertarget="newsletter-dialog"');
  });

  it("shows an update with its date, Day N, the way back and the sign-up", async () => {
    const html = await text("/updates/2025-10-20-second-update");
    expect(html).toContain(">Fixture: the second update</h1>");
    expect(html).toContain("20 October 2025</time> · Day <!-- -->25");
    expect(html).toContain('<a href="https://peer.example/page" rel="noopener">link to a peer</a>');
    expect(html).toContain('href="/updates"');
    expect(html).toContain('id="newsletter-dialog"');
    expect(html).toContain('<meta property="og:url" content="https://example.com/updates/2025-10-20-second-update"/>');
    expect(html).toContain('<meta name="description" content="The newest published update of the test folder."/>');
    expect(html).toMatch(
      /<meta property="og:image" content="https:\/\/example\.com\/card\.png\?d=\d{4}-\d{2}-\d{2}"\/>/,
    );
  });

  it("gives each update's page its own canonical address, title and description, once", async () => {
    for (const [name, title, description] of [
      ["2025-10-20-second-update", "Fixture: the second update", "The newest published update of the test folder."],
      [
        "2025-10-01-first-week",
        "The first week, and the first project",
        "Why the challenge starts with a subscription tracker, and what the first six days of building it taught me.",
      ],
    ]) {
      const html = await text(`/updates/${name}`);
      const head = html.slice(0, html.indexOf("</head>"));
      expect(head.match(/<link rel="canonical" href="[^"]*"\/>/g), name).toEqual([
        `<link rel="canonical" href="https://example.com/updates/${name}"/>`,
      ]);
      expect(head.match(/<title>[^<]*<\/title>/g), name).toEqual([`<title>${title} · Alex Placeholder</title>`]);
      expect(head.match(/<meta name="description" content="[^"]*"\/>/g), name).toEqual([
        `<meta name="description" content="${description}"/>`,
      ]);
    }
  });

  it("renders the hostile file inert: no script, iframe, style attribute or javascript: link", async () => {
    const html = await text("/updates/2025-10-10-hostile");
    const body = html.slice(html.indexOf("<article>"), html.indexOf("</article>"));
    expect(body).not.toMatch(/<(script|iframe|img|div onclick|p style)/i);
    expect(body).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
    expect(body).not.toMatch(/href="\s*javascript:/i);
    expect(body).toContain("&lt;script&gt;window.__hostile");
    expect(html.match(/<script/g)?.length).toBe(
      (await text("/updates/2025-10-20-second-update")).match(/<script/g)?.length,
    );
  });

  it("answers the site's 404 page for a draft, an unknown or a malformed name, and logs the path", async () => {
    for (const name of [DRAFT, "2025-10-21-nothing", "..%2f..%2fetc", "x".repeat(500), "2025-10-20-second-update.md"]) {
      const response = await get(`/updates/${name}`);
      expect(response.status, name).toBe(404);
      expect(response.headers.get("cache-control"), name).toBe("no-cache");
      const html = await response.text();
      expect(html).toContain("Oops! Page not found");
      expect(html).not.toContain("SECRET-DRAFT");
    }
    await server.waitForOutput(`404 Not Found: "/updates/${DRAFT}"`);
  });

  it("never shows the draft: not in the list, the feed or the sitemap", async () => {
    for (const path of [
      "/updates",
      "/updates/feed.xml",
      "/sitemap.xml",
      ...PUBLISHED.map((name) => `/updates/${name}`),
    ]) {
      const body = await text(path);
      expect(body, path).not.toContain(DRAFT);
      expect(body, path).not.toContain("secret draft");
    }
  });

  it("takes no post and no query that changes anything", async () => {
    expect((await get("/updates/2025-10-20-second-update", { method: "POST" })).status).toBe(405);
    expect((await get("/updates?x=%00")).status).toBe(200);
  });
});

describe("/updates/feed.xml", () => {
  it("is a valid Atom feed: one entry per published update with id, title, updated, link and content", async () => {
    const response = await get("/updates/feed.xml");
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "@",
      isArray: (name) => name === "entry" || name === "link",
    });
    const { feed } = parser.parse(xml);
    expect(feed["@xmlns"]).toBe("http://www.w3.org/2005/Atom");
    expect(feed.id).toBe("https://example.com/updates");
    expect(feed.author.name).toBeTruthy();
    expect(feed.updated).toBe("2025-10-19T22:00:00Z");
    expect(feed.link.map((link: Record<string, string>) => link["@rel"])).toEqual(["self", "alternate"]);
    const entries = feed.entry as Record<string, unknown>[];
    expect(entries.map((entry) => entry.id)).toEqual(PUBLISHED.map((name) => `https://example.com/updates/${name}`));
    expect(entries.map((entry) => entry.title)).toEqual([
      "Fixture: the second update",
      "Fixture: <script>alert('title')</script> & friends",
      "The first week, and the first project",
    ]);
    // Midnight in Brussels: summer time (UTC+2) on these dates.
    expect(entries.map((entry) => entry.updated)).toEqual([
      "2025-10-19T22:00:00Z",
      "2025-10-09T22:00:00Z",
      "2025-09-30T22:00:00Z",
    ]);
    for (const [index, entry] of entries.entries()) {
      const [link] = entry.link as Record<string, string>[];
      expect(link?.["@href"]).toBe(`https://example.com/updates/${PUBLISHED[index]}`);
      const content = entry.content as Record<string, string>;
      expect(content["@type"]).toBe("html");
      expect(content["#text"]).toMatch(/^<p>/);
    }
    const hostile = (entries[1]!.content as Record<string, string>)["#text"];
    expect(hostile).not.toMatch(/<script|<iframe|<[a-z][^>]*\s(style|on[a-z]+)=|href="\s*javascript:/i);
    expect(hostile).toContain("&lt;script&gt;");
    expect(entries).toHaveLength(3);
    // Each entry names its author (RFC 4287 §4.2.1), the owner of app/content/site.ts.
    expect(entries.map((entry) => (entry.author as Record<string, string>).name)).toEqual(
      PUBLISHED.map(() => "Alex Placeholder"),
    );
    // The update's `##` is an h2 in the feed as on the page.
    expect((entries[0]!.content as Record<string, string>)["#text"]).toContain("<h2>A heading of the owner's</h2>");
  });

  it("answers a second request with its ETag, or its Last-Modified, with 304 and no body", async () => {
    const first = await get("/updates/feed.xml");
    const body = await first.text();
    const etag = first.headers.get("etag")!;
    const lastModified = first.headers.get("last-modified")!;
    // Strong, and the same for the same feed.
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    const again = await get("/updates/feed.xml");
    expect([again.headers.get("etag"), await again.text()]).toEqual([etag, body]);

    for (const headers of <Record<string, string>[]>[
      { "If-None-Match": etag },
      { "If-None-Match": `W/${etag}, "other"` },
      { "If-Modified-Since": lastModified },
      { "If-Modified-Since": new Date(Date.parse(lastModified) + 60_000).toUTCString() },
    ]) {
      const response = await get("/updates/feed.xml", { headers });
      expect(response.status, JSON.stringify(headers)).toBe(304);
      expect(await response.text()).toBe("");
      expect(response.headers.get("etag")).toBe(etag);
      expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    }
    for (const headers of <Record<string, string>[]>[
      { "If-None-Match": '"another"' },
      // If-None-Match decides when both are sent (RFC 9110 §13.2.2).
      { "If-None-Match": '"another"', "If-Modified-Since": lastModified },
      { "If-Modified-Since": new Date(Date.parse(lastModified) - 1_000).toUTCString() },
      { "If-Modified-Since": "not a date" },
    ]) {
      const response = await get("/updates/feed.xml", { headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(await response.text()).toBe(body);
    }
  });
});

describe("other folders", () => {
  it("with no update: the list says the first is on its way, the feed has no entry, the footer link stays", async () => {
    const empty = await harness.start({ UPDATES_DIR: "tests/fixtures/updates/empty" });
    const html = await (await fetch(new URL("/updates", empty.url))).text();
    expect(html).toContain("The first update is on its way.");
    const home = await (await fetch(empty.url)).text();
    expect(home).toContain('<a href="/updates"');
    const feed = await (await fetch(new URL("/updates/feed.xml", empty.url))).text();
    expect(XMLValidator.validate(feed)).toBe(true);
    expect(feed).not.toContain("<entry>");
  });

  it("a bad update file stops the server's start with a line naming the file and the field", async () => {
    const dir = tempDir("portfolio-updates-bad-");
    mkdirSync(path.join(dir, "updates"));
    writeFileSync(path.join(dir, "updates", "2025-10-01-fine.md"), "---\ntitle: Fine\n---\nok\n");
    writeFileSync(path.join(dir, "updates", "2025-10-02-broken.md"), "---\nsummary: no title\n---\n");
    const { exit, output } = await startServerExpectingFailure({ env: { UPDATES_DIR: path.join(dir, "updates") } });
    expect(exit.code).toBe(1);
    expect(output()).toContain("Update file 2025-10-02-broken.md: title is missing");
    expect(output()).not.toMatch(/\n\s+at /);
  });
});
