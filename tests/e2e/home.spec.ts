import { challengeDays } from "~/utils/days.server";
import { challenge, heroCopy, links, owner, projects } from "~/content/site";
import type { Page } from "@playwright/test";
import { expect, jsEnabled, test } from "./fixtures";

/** The showcase's grid of cards, found as a visitor's assistive technology finds it: the list under its heading. */
const projectGrid = (page: Page) =>
  page.getByRole("region", { name: "My Vibe Code Projects" }).getByRole("list").first();

test.describe("home page", () => {
  test("answers 200 with the owner's title, description, Open Graph tags, language and favicon", async ({ page }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(/365-Day Challenge/);
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /12 small software projects/);
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", /.+/);
    await expect(page.locator('meta[property="og:description"]')).toHaveAttribute("content", /.+/);
    await expect(page.locator('meta[name="viewport"]')).toHaveAttribute("content", /width=device-width/);
    // The SVG and its PNG fallback (tests/e2e/social.spec.ts checks the PNGs' sizes).
    const favicons = await page
      .locator('link[rel="icon"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    expect(favicons).toContain("/favicon.svg");
    for (const favicon of favicons) expect((await page.request.get(favicon!)).status()).toBe(200);
    expect((await page.request.get("/robots.txt")).status()).toBe(200);
  });

  test("asks for no script before the first contentful paint, then hydrates", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "without JavaScript there is no script to ask for");
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    const { firstPaint, scripts } = await page.evaluate(() => ({
      firstPaint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
      scripts: performance
        .getEntriesByType("resource")
        // The stylesheet is under /build/ too, and is needed for the paint: only the modules count here.
        .filter((entry) => /^\/build\/.*\.js$/.test(new URL(entry.name).pathname))
        .map((entry) => ({ url: entry.name, start: entry.startTime })),
    }));
    expect(firstPaint).not.toBeNull();
    expect(scripts.length).toBeGreaterThan(0);
    for (const { url, start } of scripts) expect(start, url).toBeGreaterThanOrEqual(firstPaint!);
  });

  test("hero: photo with badge, name, tagline, stat tiles, challenge, buttons and location", async ({ page }) => {
    await page.goto("/");
    const hero = page.locator("section", { has: page.getByRole("heading", { level: 1 }) });
    const photo = hero.getByRole("img", { name: owner.photo.alt });
    await expect(photo).toBeVisible();
    expect(await photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await expect(hero.getByRole("img", { name: "Based in Belgium" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: owner.name })).toBeVisible();
    await expect(hero.getByText(owner.tagline)).toBeVisible();

    // The server computes the days at request time; compute them the same way now.
    const days = challengeDays(new Date(), challenge);
    const tiles = hero.locator("dl").first();
    await expect(tiles.getByText("Days In", { exact: true })).toBeVisible();
    await expect(tiles.getByText("Days Left", { exact: true })).toBeVisible();
    await expect(tiles.getByText("Projects Built", { exact: true })).toBeVisible();
    await expect(tiles.getByText("Launched", { exact: true })).toBeVisible();
    const values = await tiles.locator("dd").allTextContents();
    expect(values).toEqual([String(days.daysIn), String(days.daysLeft), "0", "0"]);

    await expect(hero.getByRole("heading", { name: "The 365-Day Challenge" })).toBeVisible();
    await expect(hero.getByText(heroCopy.challengeText)).toContainText("at least 12 projects in 365 days");
    await expect(hero.getByRole("button", { name: "Get Updates" })).toBeVisible();
    const connect = hero.getByRole("link", { name: "Let's Connect" });
    await expect(connect).toHaveAttribute("href", links.professional.href);
    await expect(connect).toHaveAttribute("rel", /noopener/);
    await expect(hero.getByText("Living the dream in Belgium", { exact: true })).toBeVisible();
  });

  test("showcase: six cards with logo, title, description, badge, stack and launch date", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 2, name: "My Vibe Code Projects" })).toBeVisible();
    const cards = projectGrid(page).locator("article");
    await expect(cards).toHaveCount(6);
    for (const [index, project] of projects.entries()) {
      const card = cards.nth(index);
      await expect(card.getByRole("heading", { level: 3 })).toHaveText(project.title);
      await expect(card).toContainText(project.logo);
      await expect(card).toContainText(project.description);
      await expect(card).toContainText(project.launchDate);
      for (const tech of project.techStack)
        await expect(card.getByRole("listitem").getByText(tech, { exact: true })).toBeVisible();
      const badge = project.status.charAt(0).toUpperCase() + project.status.slice(1);
      await expect(card.getByText(badge, { exact: true })).toBeVisible();
    }
    const building = cards.filter({ hasText: "Building" });
    await expect(building).toHaveCount(1);
    await expect(building).toContainText("🔨");
    await expect(building).toContainText("Sep '25");
    await expect(cards.filter({ hasText: "Idea" })).toHaveCount(5);
    await expect(cards.filter({ hasText: "💡" })).toHaveCount(5);
  });

  test("showcase: the external link shows on hover and on keyboard focus", async ({ page }) => {
    await page.goto("/");
    const card = projectGrid(page).locator("article").filter({ hasText: "Building" });
    const link = card.getByRole("link", { name: /Visit/ });
    await expect(link).toHaveAttribute("href", projects[0]!.url!);
    await expect(link).toHaveCSS("opacity", "0");
    await card.hover();
    await expect(link).toHaveCSS("opacity", "1");
    await page.mouse.move(0, 0);
    await expect(link).toHaveCSS("opacity", "0");
    await link.focus();
    await expect(link).toHaveCSS("opacity", "1");
  });

  test("showcase: the external link is always shown on a touch screen", async ({ browser }, testInfo) => {
    const context = await browser.newContext({
      hasTouch: true,
      isMobile: true,
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: jsEnabled(testInfo.project.name),
      baseURL: testInfo.project.use.baseURL,
    });
    const page = await context.newPage();
    await page.goto("/");
    const link = projectGrid(page).locator("article").filter({ hasText: "Building" }).getByRole("link");
    await expect(link).toHaveCSS("opacity", "1");
    await context.close();
  });

  test("showcase: the summary strip has its fixed numbers", async ({ page }) => {
    await page.goto("/");
    const strip = page
      .locator("section", { has: page.getByRole("heading", { name: "My Vibe Code Projects" }) })
      .locator("dl")
      .last();
    const pairs = await strip
      .locator("div")
      .evaluateAll((items) =>
        items.map((item) => [item.querySelector("dt")?.textContent, item.querySelector("dd")?.textContent]),
      );
    expect(pairs).toEqual([
      ["Projects Started", "1"],
      ["Launched", "0"],
      ["Monthly Revenue", "€0"],
      ["To Go", "11"],
    ]);
  });

  for (const [width, columns] of [
    [390, 1],
    [800, 2],
    [1280, 3],
  ] as const) {
    test(`showcase: ${columns} column(s) at ${width}px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/");
      const tops = await projectGrid(page)
        .locator(":scope > li")
        .evaluateAll((items) => items.map((item) => Math.round(item.getBoundingClientRect().top)));
      const firstRow = tops.filter((top) => top === tops[0]).length;
      expect(firstRow).toBe(columns);
      const grid = await projectGrid(page).evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(" ").length);
      expect(grid).toBe(columns);
    });
  }

  test("footer: mission, connect links, copyright and progress", async ({ page }) => {
    await page.goto("/");
    const footer = page.locator("footer");
    const days = challengeDays(new Date(), challenge);
    await expect(footer.getByText(/On a mission/)).toBeVisible();
    await expect(footer.getByRole("link", { name: links.social.label, exact: true })).toHaveAttribute(
      "href",
      links.social.href,
    );
    await expect(footer.getByRole("link", { name: links.code.label, exact: true })).toHaveAttribute(
      "href",
      links.code.href,
    );
    await expect(footer.getByRole("link", { name: links.professional.label, exact: true })).toHaveAttribute(
      "href",
      links.professional.href,
    );
    await expect(footer.getByRole("link", { name: owner.email })).toHaveAttribute("href", `mailto:${owner.email}`);
    await expect(footer.getByText(`© ${days.today.slice(0, 4)} ${owner.name}`)).toBeVisible();
    await expect(footer.getByText(`Day ${days.daysIn} of 365`, { exact: true })).toBeVisible();
    await expect(footer.getByText(`Challenge Progress: ${days.progressPercent}%`, { exact: true })).toBeVisible();
  });
});

test.describe("not found", () => {
  for (const path of ["/nope", "/projects/42", "/index.html", "/%E2%9C%93?x=1"]) {
    test(`${path} answers 404 with the not-found page and a link home`, async ({ page }) => {
      test.info().annotations.push({
        type: "expects-console-error",
        description: "^Failed to load resource: the server responded with a status of 404",
      });
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      // Like a visitor's click after the page is ready: a click during hydration leaves React's unfinished render
      // behind with the old document, which it reports as an error.
      if (jsEnabled(test.info().project.name)) {
        await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
      }
      await expect(page.getByRole("heading", { level: 1, name: "404" })).toBeVisible();
      await expect(page.getByText("Oops! Page not found", { exact: true })).toBeVisible();
      await page.getByRole("link", { name: "Return to Home" }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(owner.name);
    });
  }
});
