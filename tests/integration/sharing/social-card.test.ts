// The social card, sitemap, icons and structured data: the card rendered for two Brussels dates through its module
// (the server has no clock to set), then everything over real HTTP from the production server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challenge, links, owner, siteContent } from "~/content/site";
import { challengeDays } from "~/utils/days.server";
import { SOCIAL_CARD, socialCardText } from "~/sharing/social-card-text.server";
import { renderSocialCard, socialCardFor } from "~/sharing/social-card.server";
import { publishedUpdates, updateUrl } from "~/updates/updates.server";
import { type ServerProcess, startServer } from "../../support/production-server";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CARD_BYTES = 200 * 1024;

/** A PNG's size from its IHDR chunk, which must come first; throws for anything that is not a PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const buffer = Buffer.from(bytes);
  expect(buffer.subarray(0, 8).equals(PNG_SIGNATURE), "PNG signature").toBe(true);
  expect(buffer.toString("latin1", 12, 16)).toBe("IHDR");
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

// 00:30 in Brussels (summer time), still the day before in UTC, and noon on a winter day: two dates, two cards.
const FIRST = new Date("2025-10-03T22:30:00Z");
const SECOND = new Date("2026-02-14T12:00:00Z");

describe("the card, rendered through its module", () => {
  it("is a 1200×630 PNG under 200 KB for each date, and differs between two Brussels dates", async () => {
    const texts = [FIRST, SECOND].map((now) => socialCardText(challengeDays(now, challenge), siteContent));
    expect(texts.map((text) => text.day)).toEqual(["Day 9 of 365", "Day 142 of 365"]);
    const [first, second] = await Promise.all(texts.map(renderSocialCard));
    for (const png of [first!, second!]) {
      expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
      expect(png.length).toBeLessThan(MAX_CARD_BYTES);
    }
    expect(Buffer.from(first!).equals(Buffer.from(second!))).toBe(false);
  });

  it("is rendered once per Brussels date: concurrent requests share the render, a new date renders anew", async () => {
    const later = new Date(FIRST.getTime() + 3 * 3_600_000);
    const [a, b] = await Promise.all([socialCardFor(FIRST), socialCardFor(later)]);
    expect(a).toBe(b);
    expect(a.text.day).toBe("Day 9 of 365");
    // Kept: the same object, without waiting for anything.
    expect(socialCardFor(later)).toBe(a);
    const next = await socialCardFor(SECOND);
    expect(next).not.toBe(a);
    expect(next.etag).not.toBe(a.etag);
    expect(next.text.day).toBe("Day 142 of 365");
  });
});

describe("over HTTP", () => {
  let server: ServerProcess; // ALLOW_INDEXING on (the default)
  let staging: ServerProcess; // ALLOW_INDEXING=false

  beforeAll(async () => {
    [server, staging] = await Promise.all([startServer(), startServer({ env: { ALLOW_INDEXING: "false" } })]);
  });

  afterAll(async () => {
    await Promise.all([server?.stop(), staging?.stop()]);
  });

  const get = (target: ServerProcess, pathname: string, init: RequestInit = {}) =>
    fetch(target.url + pathname, { redirect: "manual", ...init });

  const metaContent = (html: string, attribute: "property" | "name", key: string) => {
    const match = new RegExp(`<meta ${attribute}="${key.replace(/[.:+]/g, "\\$&")}" content="([^"]*)"`).exec(html);
    return match?.[1]
      ?.replace(/&amp;/g, "&")
      .replace(/&#x27;/g, "'")
      .replace(/&quot;/g, '"');
  };

  describe("GET /card.png", () => {
    it("is today's 1200×630 PNG under 200 KB, with an ETag, a day's lifetime and the resource headers", async () => {
      const response = await get(server, "/card.png");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const png = new Uint8Array(await response.arrayBuffer());
      expect(pngSize(png)).toEqual({ width: SOCIAL_CARD.width, height: SOCIAL_CARD.height });
      expect(png.length).toBeLessThan(MAX_CARD_BYTES);
      expect(response.headers.get("etag")).toMatch(/^"[\w-]{27}"$/);
      const maxAge = Number(/^public, max-age=(\d+)$/.exec(response.headers.get("cache-control") ?? "")?.[1]);
      // Until the next Brussels midnight: at most a day (25 hours on the night the clocks go back).
      expect(maxAge).toBeGreaterThanOrEqual(0);
      expect(maxAge).toBeLessThanOrEqual(25 * 3600);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    });

    it("answers 304 to its ETag, and the same card whatever the query", async () => {
      const first = await get(server, "/card.png");
      const etag = first.headers.get("etag")!;
      const bytes = Buffer.from(await first.arrayBuffer());
      const revalidated = await get(server, "/card.png", { headers: { "If-None-Match": etag } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get("etag")).toBe(etag);
      expect(await revalidated.text()).toBe("");
      const dated = await get(server, "/card.png?d=2001-01-01");
      expect(dated.headers.get("etag")).toBe(etag);
      expect(Buffer.from(await dated.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it("is not logged as a missing page, nor as an error", async () => {
      await get(server, "/card.png");
      expect(server.output()).not.toContain("/card.png");
      expect(server.output("stderr")).toBe("");
    });
  });

  describe("the home page's meta and structured data", () => {
    let html: string;
    beforeAll(async () => {
      html = await (await get(server, "/")).text();
    });

    it("point to today's card, large, with the page's day and progress in its text alternative", () => {
      const today = challengeDays(new Date(), challenge);
      expect(metaContent(html, "property", "og:image")).toBe(`${owner.siteUrl}/card.png?d=${today.today}`);
      expect(metaContent(html, "property", "og:image:type")).toBe("image/png");
      expect(metaContent(html, "property", "og:image:width")).toBe("1200");
      expect(metaContent(html, "property", "og:image:height")).toBe("630");
      expect(metaContent(html, "name", "twitter:card")).toBe("summary_large_image");
      const alt = metaContent(html, "property", "og:image:alt");
      expect(alt).toContain(owner.name);
      // The same figures as the footer of the same page.
      const day = /Day (?:<!-- -->)?(\d+)(?:<!-- -->)? of (?:<!-- -->)?365/.exec(html)?.[1];
      const percent = /Challenge Progress: (?:<!-- -->)?(\d+)(?:<!-- -->)?%/.exec(html)?.[1];
      expect(day).toBe(String(today.daysIn));
      expect(alt).toContain(`Day ${day} of 365`);
      expect(alt).toContain(`Challenge Progress: ${percent}%`);
      // The photo is still on the page.
      expect(html).toContain(`src="${owner.photo.src}"`);
    });

    it("carry a ProfilePage about the owner as JSON-LD that cannot end its element early", () => {
      const scripts = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
      expect(scripts).toHaveLength(1);
      const text = scripts[0]![1]!;
      expect(text).not.toMatch(/[<>]/);
      const data = JSON.parse(text);
      expect(data).toMatchObject({
        "@context": "https://schema.org",
        "@type": "ProfilePage",
        mainEntity: {
          "@type": "Person",
          name: owner.name,
          url: `${owner.siteUrl}/`,
          image: `${owner.siteUrl}${owner.photo.src}`,
          sameAs: [links.social.href, links.code.href, links.professional.href],
        },
      });
    });

    it("link the PNG icons, which are the sizes they say", async () => {
      expect(html).toContain('<link rel="apple-touch-icon" href="/apple-touch-icon.png" sizes="180x180"/>');
      expect(html).toContain('<link rel="icon" href="/favicon-48.png" type="image/png" sizes="48x48"/>');
      expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
      for (const [pathname, size] of [
        ["/apple-touch-icon.png", 180],
        ["/favicon-48.png", 48],
      ] as const) {
        const response = await get(server, pathname);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/png");
        expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: size, height: size });
      }
    });
  });

  describe("sitemap and robots.txt", () => {
    it("list the site's URL, named in robots.txt", async () => {
      const robots = await (await get(server, "/robots.txt")).text();
      expect(robots).toContain(`\nSitemap: ${owner.siteUrl}/sitemap.xml\n`);
      const response = await get(server, "/sitemap.xml");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      const xml = await response.text();
      expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org/);
      // The home page, then the updates: the list and each published one (tests/integration/updates/updates-http.test.ts).
      expect([...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1])).toEqual([
        `${owner.siteUrl}/`,
        `${owner.siteUrl}/updates`,
        ...publishedUpdates().map((update) => updateUrl(update.name)),
      ]);
      expect(xml).toContain(`<lastmod>${challengeDays(new Date(), challenge).today}</lastmod>`);
    });

    it("with ALLOW_INDEXING=false: no sitemap, and robots.txt names none", async () => {
      const robots = await (await get(staging, "/robots.txt")).text();
      expect(robots).toBe("User-agent: *\nDisallow: /\n");
      const response = await get(staging, "/sitemap.xml");
      expect(response.status).toBe(404);
      expect(response.headers.get("x-robots-tag")).toBe("noindex");
      // Its own answer, not the unknown-route page and its log line.
      expect(await response.text()).toBe("Not Found\n");
      expect(staging.output()).not.toContain("sitemap");
    });
  });
});
