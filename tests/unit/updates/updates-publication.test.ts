import { beforeAll, describe, expect, it, vi } from "vitest";
import { isDue, isPublished, notBefore, publicationDay } from "~/updates/publication.server";

describe("when an update is public (pure: the caller gives today's Brussels date)", () => {
  const update = { date: "2026-12-01", draft: false };
  it("from its own date on, never before", () => {
    expect(publicationDay(update)).toBe("2026-12-01");
    expect(isPublished(update, "2026-11-30")).toBe(false);
    expect(isPublished(update, "2026-12-01")).toBe(true);
    expect(isPublished(update, "2027-01-01")).toBe(true);
  });

  it("never as a draft, whatever the day; a draft's day still comes (the send command decides about drafts)", () => {
    expect(isPublished({ ...update, draft: true }, "2027-01-01")).toBe(false);
    expect(isDue({ date: "2026-12-01" }, "2027-01-01")).toBe(true);
  });

  it("tells a sending command when it may go out", () => {
    expect(notBefore(update, "2026-11-30")).toBe("not before 2026-12-01 (Europe/Brussels)");
    expect(notBefore(update, "2026-12-01")).toBeNull();
  });
});

// The module reads UPDATES_DIR when it loads: the test folder (its newest published update is dated 2025-10-20).
let api: typeof import("~/updates/updates.server");
beforeAll(async () => {
  vi.stubEnv("UPDATES_DIR", "tests/fixtures/updates/site");
  api = await import("~/updates/updates.server");
});

describe("what the site shows at a moment", () => {
  // 23:59:59 on 19 October in Brussels (UTC+2), then its midnight: 22:00 UTC, still the 19th in UTC.
  const lastSecond = new Date("2025-10-19T21:59:59Z");
  const midnight = new Date("2025-10-19T22:00:00Z");

  it("publishedUpdates: an update appears at the Brussels midnight that begins its day", () => {
    expect(api.publishedUpdates(lastSecond).map((update) => update.name)).toEqual([
      "2025-10-10-hostile",
      "2025-10-01-first-week",
    ]);
    expect(api.publishedUpdates(midnight).map((update) => update.name)).toEqual([
      "2025-10-20-second-update",
      "2025-10-10-hostile",
      "2025-10-01-first-week",
    ]);
  });

  it("findPublishedUpdate: the same rule, and never a draft", () => {
    expect(api.findPublishedUpdate("2025-10-20-second-update", lastSecond)).toBeUndefined();
    expect(api.findPublishedUpdate("2025-10-20-second-update", midnight)?.title).toBe("Fixture: the second update");
    expect(api.findPublishedUpdate("2025-11-05-secret-draft", new Date("2030-01-01T00:00:00Z"))).toBeUndefined();
    expect(api.findPublishedUpdate("../site", midnight)).toBeUndefined();
  });
});
