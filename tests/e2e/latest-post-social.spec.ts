import { expectedPost as blueskyPost, OWNER_HANDLE } from "../fixtures/latest-post/bluesky";
import { expectedPost as mastodonPost } from "../fixtures/latest-post/mastodon";
import { type FakeBluesky, startFakeBluesky } from "../support/fakes/bluesky";
import { type FakeMastodon, startFakeMastodon } from "../support/fakes/mastodon";
import { type ServerProcess, startServer } from "../support/server-process.mjs";
import { wcagAxe } from "./axe";
import { expect, jsEnabled, test, visit } from "./fixtures";

// Without Supabase, the server reads Bluesky or Mastodon itself (loopback fakes answering the fixtures): what a
// fresh `npm start` with LATEST_POST_BLUESKY or LATEST_POST_MASTODON set shows, with and without JavaScript.
let bluesky: FakeBluesky;
let mastodon: FakeMastodon;
let blueskyApp: ServerProcess;
let mastodonApp: ServerProcess;

test.beforeAll(async () => {
  [bluesky, mastodon] = await Promise.all([startFakeBluesky(), startFakeMastodon()]);
  [blueskyApp, mastodonApp] = await Promise.all([
    startServer({ env: { LATEST_POST_BLUESKY: OWNER_HANDLE, BLUESKY_API_URL: bluesky.url } }),
    startServer({ env: { LATEST_POST_MASTODON: mastodon.profileUrl } }),
  ]);
});

test.afterAll(async () => {
  await Promise.all([blueskyApp?.stop(), mastodonApp?.stop()]);
  await Promise.all([bluesky?.close(), mastodon?.close()]);
});

test.describe("latest post without Supabase", () => {
  test("Bluesky: the newest own post, full link restored, linking to its bsky.app address", async ({ page }) => {
    await visit(page, `${blueskyApp.url}/`);
    const card = page.getByRole("region", { name: "Latest thought" });
    await expect(card).toBeVisible();
    await expect(card.getByText("On Bluesky", { exact: true })).toBeVisible();
    await expect(card.getByText(blueskyPost.text, { exact: true })).toBeVisible();
    const link = card.getByRole("link", { name: "Read the post on Bluesky" });
    await expect(link).toHaveAttribute("href", blueskyPost.url);
    await expect(link).toHaveAttribute("rel", /noopener/);
  });

  test("Mastodon: the newest own public post, its HTML shown as plain text", async ({ page }) => {
    await visit(page, `${mastodonApp.url}/`);
    const card = page.getByRole("region", { name: "Latest thought" });
    await expect(card.getByText("On Mastodon", { exact: true })).toBeVisible();
    // The post's own line breaks are kept; no markup of the post is interpreted.
    const text = card.locator("p").filter({ hasText: "Shipped & tested" });
    expect(await text.innerText()).toBe(mastodonPost.text);
    await expect(card.locator("script, b")).toHaveCount(0);
    await expect(card.getByRole("link", { name: "Read the post on Mastodon" })).toHaveAttribute(
      "href",
      mastodonPost.url,
    );
  });

  test("the card with its source and link passes axe (WCAG A and AA)", async ({ page }, testInfo) => {
    test.skip(!jsEnabled(testInfo.project.name), "axe is a script: the same server HTML is analysed in js-on");
    await visit(page, `${blueskyApp.url}/`);
    const { violations } = await wcagAxe(page).include('[aria-labelledby="latest-post-label"]').analyze();
    expect(
      violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target).join(", ")}`),
    ).toEqual([]);
  });
});
