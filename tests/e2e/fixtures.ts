import { type Page, test as base, expect } from "@playwright/test";
import type { StandIns } from "../../playwright.config";

/** Fails any test during which the page logs a console error or warning (a hydration mismatch is one), or throws. */
export const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: [
    async ({ page }, use, testInfo) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      await use(errors);
      // A page that React was still hydrating when the test ended could hide a mismatch: let it finish first.
      if (jsEnabled(testInfo.project.name) && !page.isClosed()) {
        const remixPage = await page.evaluate(() => "__remixContext" in window).catch(() => false);
        if (remixPage) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
      }
      // A test may expect lines it causes on purpose, each described by a pattern; nothing else may be logged.
      const expected = testInfo.annotations
        .filter((annotation) => annotation.type === "expects-console-error")
        .map((annotation) => new RegExp(annotation.description ?? "."));
      const unexpected = errors.filter((error) => !expected.some((pattern) => pattern.test(error)));
      expect(unexpected, "console errors and warnings").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * Whether a project runs with JavaScript: for branching inside a test. To skip a test or a group in one project, use
 * Playwright's own option instead, `test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, why)` for a group and
 * the `javaScriptEnabled` fixture inside a test, so there is one way.
 */
export const jsEnabled = (projectName: string) => projectName.startsWith("js-on");

/** The running test's project's own servers and stub Supabase (playwright.config.ts). */
export const standIns = () => test.info().project.metadata as StandIns;

/** Opens a page like a visitor; with JavaScript on, also waits until React has hydrated it. */
export async function visit(page: Page, url: string) {
  await page.goto(url);
  if (jsEnabled(test.info().project.name)) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}
