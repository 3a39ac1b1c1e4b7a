// When and in which order the production server shows updates, over real HTTP: an update dated in the future appears
// at the Brussels midnight that begins its day, without a restart (the server's clock moved by
// tests/support/moved-clock.mjs); same-day updates in the owner's order; the feed holds the newest 20.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, describe, expect, it } from "vitest";
import { serverHarness, type ServerProcess } from "../../support/production-server";

const harness = serverHarness("portfolio-updates-schedule-");
afterAll(() => harness.cleanup());

/** A folder of update files: name → front matter lines (the title is added). */
function folder(files: Record<string, string[]>): string {
  const dir = harness.scratchDir();
  for (const [name, fields] of Object.entries(files)) {
    writeFileSync(
      path.join(dir, `${name}.md`),
      ["---", `title: Title of ${name}`, ...fields, "---", "", name].join("\n"),
    );
  }
  return dir;
}

const get = (server: ServerProcess, path: string, init?: RequestInit) =>
  fetch(new URL(path, server.url), { redirect: "manual", ...init });
const text = async (server: ServerProcess, path: string) => (await get(server, path)).text();
/** The update names a page links to, in order. */
const listed = (html: string) =>
  [...html.matchAll(/<a href="\/updates\/([^"/]+)"/g)].map((match) => match[1]).filter((name) => name !== "feed.xml");
const feedEntries = (xml: string): Record<string, unknown>[] =>
  new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" }).parse(xml).feed.entry ?? [];
const entryNames = (xml: string) => feedEntries(xml).map((entry) => String(entry.id).split("/").pop());

describe("an update dated in the future", () => {
  it("is nowhere until its day begins in Brussels, then everywhere, without a restart", async () => {
    const PAST = "2030-01-10-past";
    const FUTURE = "2030-01-15-future";
    const updates = folder({ [PAST]: [], [FUTURE]: ["summary: Not before the fifteenth"] });
    // 23:30 in Brussels (UTC+1 in January) on the 14th; then 00:00 on the 15th there, still the 14th in UTC.
    const server = await harness.start(
      { UPDATES_DIR: updates, MOVED_CLOCK: "2030-01-14T22:30:00Z,2030-01-14T23:00:00Z" },
      { args: ["--import", "./tests/support/moved-clock.mjs", "server/index.mjs"] },
    );
    const before = await get(server, "/updates/feed.xml");
    const etagBefore = before.headers.get("etag")!;
    expect(entryNames(await before.text())).toEqual([PAST]);
    expect(listed(await text(server, "/updates"))).toEqual([PAST]);
    expect((await get(server, `/updates/${FUTURE}`)).status).toBe(404);
    const sitemap = await text(server, "/sitemap.xml");
    expect(sitemap).toContain(`/updates/${PAST}</loc>`);
    expect(sitemap).not.toContain(FUTURE);
    expect((await get(server, "/updates/feed.xml", { headers: { "If-None-Match": etagBefore } })).status).toBe(304);

    server.child.kill("SIGUSR2");
    await server.waitForOutput("moved-clock: now 2030-01-14T23:00:");

    const after = await get(server, "/updates/feed.xml", { headers: { "If-None-Match": etagBefore } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etagBefore);
    expect(entryNames(await after.text())).toEqual([FUTURE, PAST]);
    expect(listed(await text(server, "/updates"))).toEqual([FUTURE, PAST]);
    const page = await get(server, `/updates/${FUTURE}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Not before the fifteenth");
    expect(await text(server, "/sitemap.xml")).toContain(`/updates/${FUTURE}</loc>`);
  });
});

describe("order and size", () => {
  let server: ServerProcess;
  it("orders same-day updates by their time:, then by file name; the feed dates them at that time", async () => {
    const updates = folder({
      "2025-10-02-b-untimed": [],
      "2025-10-02-a-untimed": [],
      "2025-10-02-morning": ["time: 09:15"],
      "2025-10-02-evening": ["time: '21:05'"],
      "2025-10-03-next-day": [],
      "2025-10-01-day-before": ["time: 23:59"],
    });
    server = await harness.start({ UPDATES_DIR: updates });
    const order = [
      "2025-10-03-next-day",
      "2025-10-02-evening",
      "2025-10-02-morning",
      "2025-10-02-b-untimed",
      "2025-10-02-a-untimed",
      "2025-10-01-day-before",
    ];
    expect(listed(await text(server, "/updates"))).toEqual(order);
    const xml = await text(server, "/updates/feed.xml");
    expect(entryNames(xml)).toEqual(order);
    // Brussels is UTC+2 on these dates.
    expect(feedEntries(xml).map((entry) => entry.published)).toEqual([
      "2025-10-02T22:00:00Z",
      "2025-10-02T19:05:00Z",
      "2025-10-02T07:15:00Z",
      "2025-10-01T22:00:00Z",
      "2025-10-01T22:00:00Z",
      "2025-10-01T21:59:00Z",
    ]);
  });

  it("the feed holds the newest 20 updates; the list and the sitemap hold them all", async () => {
    const names = Array.from({ length: 25 }, (_, i) => `2025-11-${String(i + 1).padStart(2, "0")}-update`);
    server = await harness.start({ UPDATES_DIR: folder(Object.fromEntries(names.map((name) => [name, []]))) });
    const newestFirst = names.toReversed();
    expect(entryNames(await text(server, "/updates/feed.xml"))).toEqual(newestFirst.slice(0, 20));
    expect(listed(await text(server, "/updates"))).toEqual(newestFirst);
    expect((await text(server, "/sitemap.xml")).match(/<loc>[^<]*\/updates\/2025-/g)).toHaveLength(25);
  });
});
