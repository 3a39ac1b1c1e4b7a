// The updates in a real browser, JavaScript on and off, against a production server of its own reading the test
// folder (tests/fixtures/updates/site: two plain updates, a hostile one and a draft).
import { gzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { pageToAnalyse, wcagAxe } from "./axe";
import { PixelLab, relativeLuminance, textContrasts, visibleText } from "./contrast";
import { expect, jsEnabled, test, visit } from "./fixtures";
import { startServer } from "../support/server-process.mjs";

const PUBLISHED = ["2025-10-20-second-update", "2025-10-10-hostile", "2025-10-01-first-week"];
const DRAFT = "2025-11-05-secret-draft";
const SCHEMES = ["light", "dark"] as const;

let server: Awaited<ReturnType<typeof startServer>>;
test.beforeAll(async () => {
  server = await startServer({ env: { UPDATES_DIR: "tests/fixtures/updates/site" } });
});
test.afterAll(async () => server?.stop());

const at = (path: string) => new URL(path, server.url).toString();

test.describe("the list and the pages", () => {
  test("/updates lists the published updates newest first; each leads to its page and back", async ({ page }) => {
    await visit(page, at("/updates"));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Updates");
    const titles = page.getByRole("list").first().getByRole("heading", { level: 2 });
    await expect(titles).toHaveText([
      "Fixture: the second update",
      "Fixture: <script>alert('title')</script> & friends",
      "The first week, and the first project",
    ]);
    await expect(page.getByText("20 October 2025 · Day 25")).toBeVisible();
    await expect(page.getByText("secret draft")).toHaveCount(0);
    await page.getByRole("link", { name: "Fixture: the second update" }).click();
    await expect(page).toHaveURL(at(`/updates/${PUBLISHED[0]}`));
    if (jsEnabled(test.info().project.name))
      await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Fixture: the second update");
    await expect(page.getByText("20 October 2025 · Day 25")).toBeVisible();
    await expect(page.getByRole("link", { name: "link to a peer" })).toHaveAttribute("rel", "noopener");
    await page.getByRole("link", { name: "All updates" }).click();
    await expect(page).toHaveURL(at("/updates"));
  });

  test("an update's ## is an h2 under its title, its quote and its code are set apart", async ({ page }) => {
    await visit(page, at(`/updates/${PUBLISHED[0]}`));
    const article = page.locator("article");
    await expect(article.getByRole("heading", { level: 2 })).toHaveText(["A heading of the owner's"]);
    const style = (selector: string) =>
      article.locator(selector).evaluate((element) => {
        const computed = getComputedStyle(element);
        return { border: computed.borderLeftWidth, background: computed.backgroundColor, font: computed.fontFamily };
      });
    const page_ = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const quote = await style("blockquote");
    expect(quote.border).toBe("4px");
    expect(quote.background).not.toBe(page_);
    const code = await style("pre");
    expect(code.background).not.toBe(page_);
    expect(code.font).toMatch(/mono/i);
    expect((await style("p > code")).background).not.toBe(page_);
  });

  test("'Get Updates' on an update page opens the sign-up dialog", async ({ page }) => {
    await visit(page, at(`/updates/${PUBLISHED[2]}`));
    await page.getByRole("button", { name: "Get Updates" }).click();
    const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
    await expect(dialog).toBeVisible();
    await dialog.getByPlaceholder("Enter your email address").fill("reader@example.com");
    await dialog.getByRole("button", { name: "Get Early Access" }).click();
    await expect(page.getByText("Successfully subscribed!")).toBeVisible();
  });

  test("the hostile update is inert: nothing runs, nothing is embedded or styled inline", async ({ page }) => {
    await visit(page, at(`/updates/${PUBLISHED[1]}`));
    const article = page.locator("article");
    await expect(article.getByRole("heading", { level: 1 })).toHaveText(
      "Fixture: <script>alert('title')</script> & friends",
    );
    await expect(article.locator("script, iframe, img, [style], [onclick]")).toHaveCount(0);
    await expect(article.locator('a[href^="javascript:" i]')).toHaveCount(0);
    await expect(article.getByText('<script>window.__hostile = "script";</script>')).toBeVisible();
    if (jsEnabled(test.info().project.name)) {
      expect(await page.evaluate(() => (window as { __hostile?: string }).__hostile)).toBeUndefined();
    }
  });

  test("a draft and an unknown name are the site's 404 page", async ({ page }) => {
    // The browser reports each 404 document itself.
    test.info().annotations.push({
      type: "expects-console-error",
      description: "^Failed to load resource: the server responded with a status of 404",
    });
    for (const name of [DRAFT, "2025-12-01-nothing"]) {
      const response = await page.goto(at(`/updates/${name}`));
      expect(response?.status()).toBe(404);
      await expect(page.getByText("Oops! Page not found")).toBeVisible();
      await expect(page.getByText("SECRET-DRAFT-BODY")).toHaveCount(0);
    }
  });

  test("the home page's footer leads to the updates", async ({ page }) => {
    await visit(page, at("/"));
    await page.getByRole("navigation", { name: "Connect" }).getByRole("link", { name: "Updates" }).click();
    await expect(page).toHaveURL(at("/updates"));
  });
});

test.describe("JavaScript budget", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "only with JavaScript");

  async function scriptBytes(page: Page, path: string) {
    const bodies: Promise<Buffer>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script") bodies.push(response.body());
    });
    await visit(page, at(path));
    await page.waitForLoadState("networkidle");
    return (await Promise.all(bodies)).reduce((sum, body) => sum + gzipSync(body).length, 0);
  }

  test("an update page loads no more JavaScript than the home page", async ({ browser }) => {
    const sizes: Record<string, number> = {};
    for (const path of ["/", "/updates", `/updates/${PUBLISHED[0]}`]) {
      const context = await browser.newContext();
      sizes[path] = await scriptBytes(await context.newPage(), path);
      await context.close();
    }
    test.info().annotations.push({ type: "JS (gzip bytes)", description: JSON.stringify(sizes) });
    expect(sizes["/updates"]).toBeLessThanOrEqual(sizes["/"]!);
    expect(sizes[`/updates/${PUBLISHED[0]}`]).toBeLessThanOrEqual(sizes["/"]!);
  });
});

for (const scheme of SCHEMES) {
  test.describe(`${scheme} colour scheme`, () => {
    test.use({ colorScheme: scheme });

    for (const path of ["/updates", `/updates/${PUBLISHED[0]}`, `/updates/${PUBLISHED[1]}`]) {
      test(`${path}: axe finds nothing, the page is ${scheme} and its text at WCAG AA`, async ({
        page,
        browser,
      }, testInfo) => {
        const target = await pageToAnalyse(page, browser, testInfo, scheme);
        await target.goto(at(path));
        if (target === page && jsEnabled(testInfo.project.name)) {
          await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
        }
        const { violations } = await wcagAxe(target).analyze();
        expect(
          violations.map((violation) => ({
            rule: violation.id,
            nodes: violation.nodes.map((node) => node.target.join(" ")),
          })),
        ).toEqual([]);
        if (target !== page) await target.context().close();

        await page.goto(at(path));
        const lab = await PixelLab.open(browser);
        try {
          const boxes = await visibleText(page, "body", true);
          const png = await page.screenshot({ fullPage: true });
          const [canvas] = await lab.colours([
            await page.evaluate(() => getComputedStyle(document.body).backgroundColor),
          ]);
          if (scheme === "dark") expect(relativeLuminance(canvas!)).toBeLessThan(0.02);
          else expect(relativeLuminance(canvas!)).toBeGreaterThan(0.85);
          const contrasts = await textContrasts(lab, png, boxes);
          expect(contrasts.length).toBeGreaterThan(5);
          expect(contrasts.filter((entry) => entry.ratio < entry.required)).toEqual([]);
        } finally {
          await lab.close();
        }
      });
    }
  });
}
