import type { Browser, Page } from "@playwright/test";
import { renderMail } from "~/mail/layout/render-mail.server";
import { wcagAxe } from "./axe";
import { expect, test } from "./fixtures";

// The mails as a client shows them: the HTML part alone, in Chromium, at a phone's width and a desktop's, in light and
// dark. A mail client runs no script; axe needs one, so this runs in the JavaScript project only.
test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "axe runs as a script; the mail itself has none");

const site = { ownerName: "Alex Placeholder", siteUrl: "https://example.com" };
const LONG_URL = `https://example.com/updates/${"a-long-path-segment-".repeat(10)}`;

const UPDATE_MARKDOWN = [
  "Shipped the first screen this week (https://example.com/updates).",
  "",
  "## What happened",
  "",
  "- five people tried it on their phones",
  "- two of them paid",
  "",
  "> Nobody reads onboarding copy. Not one of the five.",
  "",
  "A paragraph to compare the quote with.",
  "",
  "```",
  "npm run newsletter -- send 2026-11-20-first-launch --test you@example.com",
  "```",
  "",
  "### A detail",
  "",
  `The long address: ${LONG_URL}`,
].join("\n");

const MAILS = {
  confirmation: renderMail({
    kind: "confirmation",
    ...site,
    subject: "Confirm your subscription to Alex Placeholder's updates",
    // A token of the real form (32 random bytes, base64url): 43 characters with nowhere to break.
    confirmUrl: `https://example.com/confirm?token=${"x7Kq2TzR9vLmN4pWcY8sHdJf3GbA6eUo1iXtZkV5rQw"}`,
  }).html,
  update: renderMail({
    kind: "update",
    ...site,
    title: "First launch: what five readers taught me",
    body: { markdown: UPDATE_MARKDOWN },
    pageUrl: "https://example.com/updates/2026-11-20-first-launch",
    unsubscribeUrl: "https://example.com/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678",
  }).html,
};

const SCHEMES = ["light", "dark"] as const;
const WIDTHS = [320, 375, 800];

async function openMail(page: Page, html: string, width: number, scheme: (typeof SCHEMES)[number]) {
  await page.setViewportSize({ width, height: 800 });
  await page.emulateMedia({ colorScheme: scheme });
  await page.setContent(html);
}

/**
 * The mail on a phone: a mobile browser lays a page without a viewport out 980 px wide and shrinks it, so this is
 * where a missing viewport or an unbreakable line shows.
 */
async function openOnPhone(browser: Browser, html: string, width: number, scheme: (typeof SCHEMES)[number]) {
  const context = await browser.newContext({
    viewport: { width, height: 800 },
    isMobile: width < 800,
    hasTouch: width < 800,
    colorScheme: scheme,
  });
  const page = await context.newPage();
  await page.setContent(html);
  return { page, close: () => context.close() };
}

const headingLevels = (page: Page) =>
  page.$$eval("h1, h2, h3, h4, h5, h6", (elements) => elements.map((element) => Number(element.tagName.slice(1))));

for (const [name, html] of Object.entries(MAILS)) {
  for (const scheme of SCHEMES) {
    test(`the ${name} mail fits 320, 375 and 800 px without scrolling sideways, ${scheme}`, async ({ browser }) => {
      for (const width of WIDTHS) {
        const { page, close } = await openOnPhone(browser, html, width, scheme);
        const scroll = await page.evaluate(() => {
          const root = document.scrollingElement!;
          return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
        });
        expect(scroll.clientWidth, `${width} px`).toBe(width);
        expect(scroll.scrollWidth, `${width} px`).toBeLessThanOrEqual(scroll.clientWidth);
        // The button is a block as wide as the text, whatever the screen.
        if (name === "confirmation") {
          const box = (await page.locator("a.button").boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(width);
          expect(box.width).toBeGreaterThan(Math.min(width, 600) - 64);
        }
        await close();
      }
    });

    test(`the ${name} mail has headings in order and no accessibility violation, ${scheme}`, async ({ page }) => {
      await openMail(page, html, 375, scheme);
      const levels = await headingLevels(page);
      expect(levels[0]).toBe(1);
      levels.forEach((level, at) => {
        if (at > 0) expect(level, `heading ${at}`).toBeLessThanOrEqual(levels[at - 1]! + 1);
      });
      // The scheme's own colours, not the client's guess: dark text on light, or light text on dark.
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe(scheme === "dark" ? "rgb(17, 24, 39)" : "rgb(255, 255, 255)");
      const { violations } = await wcagAxe(page).analyze();
      const summary = violations.map((violation) => ({
        rule: violation.id,
        nodes: violation.nodes.map((node) => node.target.join(" ")),
      }));
      expect(summary).toEqual([]);
    });
  }
}

test("an update's quote, code and headings are styled apart from its paragraphs", async ({ page }) => {
  await openMail(page, MAILS.update, 375, "light");
  expect(await headingLevels(page)).toEqual([1, 2, 3]);
  const style = (selector: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((element) => {
        const computed = getComputedStyle(element);
        return {
          borderLeft: computed.borderLeftWidth,
          marginLeft: computed.marginLeft,
          paddingLeft: computed.paddingLeft,
          background: computed.backgroundColor,
          fontSize: computed.fontSize,
          fontFamily: computed.fontFamily,
        };
      });
  const paragraph = await style(".body > p");
  const quote = await style("blockquote");
  expect(quote.borderLeft).not.toBe(paragraph.borderLeft);
  expect(quote.paddingLeft).not.toBe(paragraph.paddingLeft);
  const code = await style("pre");
  expect(code.background).not.toBe(paragraph.background);
  expect(code.fontFamily).toMatch(/monospace/);
  const [h1, h2] = [await style("h1"), await style("h2")];
  expect(parseFloat(h1.fontSize)).toBeGreaterThan(parseFloat(h2.fontSize));
  expect(parseFloat(h2.fontSize)).toBeGreaterThan(parseFloat(paragraph.fontSize));
  // The long address wraps inside the mail rather than running past it.
  const link = (await page.locator(`a[href="${LONG_URL}"]`).boundingBox())!;
  expect(link.x + link.width).toBeLessThanOrEqual(375);
});
