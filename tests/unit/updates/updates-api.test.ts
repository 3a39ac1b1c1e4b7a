import { beforeAll, describe, expect, it, vi } from "vitest";

// The module reads UPDATES_DIR when it loads: the test folder, not the owner's.
let api: typeof import("~/updates/updates.server");
beforeAll(async () => {
  vi.stubEnv("UPDATES_DIR", "tests/fixtures/updates/site");
  api = await import("~/updates/updates.server");
});

describe("the updates API", () => {
  it("allUpdates: drafts included, newest first", () => {
    expect(api.allUpdates().map((update) => [update.name, update.draft])).toEqual([
      ["2025-11-05-secret-draft", true],
      ["2025-10-20-second-update", false],
      ["2025-10-10-hostile", false],
      ["2025-10-01-first-week", false],
    ]);
  });

  it("publishedUpdates: no draft", () => {
    expect(api.publishedUpdates().map((update) => update.name)).toEqual([
      "2025-10-20-second-update",
      "2025-10-10-hostile",
      "2025-10-01-first-week",
    ]);
  });

  it("findUpdate: drafts too; undefined for unknown and malformed names", () => {
    expect(api.findUpdate("2025-11-05-secret-draft")?.title).toBe("Fixture: a secret draft");
    expect(api.findUpdate("2025-10-20-second-update")?.summary).toBe("The newest published update of the test folder.");
    for (const name of ["2025-10-21-nothing", "../site", "", "2025-10-20-second-update.md", "x".repeat(10_000)]) {
      expect(api.findUpdate(name), name).toBeUndefined();
    }
  });

  it("updateUrl: absolute on the owner's address", () => {
    expect(api.updateUrl("2025-10-20-second-update")).toBe("https://example.com/updates/2025-10-20-second-update");
  });

  it("renders through the one renderer", () => {
    const update = api.findUpdate("2025-10-20-second-update");
    expect(api.renderUpdateHtml(update?.markdown ?? "")).toContain('href="https://peer.example/page" rel="noopener"');
    expect(api.renderUpdateText(update?.markdown ?? "")).toContain("link to a peer (https://peer.example/page)");
  });
});
