// axe-core in the pages under test, shared by the accessibility and confirm specs.
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page, TestInfo } from "@playwright/test";
import { expect, jsEnabled } from "./fixtures";

export type Scheme = "light" | "dark";

// WCAG 2.0, 2.1 and 2.2, levels A and AA.
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * axe over `page` with the WCAG rules, run by axe.run in the page itself (the package's "legacy mode"). The default
 * injects axe a second time into a new blank page for every analysis, to merge the results of frames from other
 * origins there; our pages and mails have no frames, and that blank page cost more than the analysis (3.5 s against
 * 1.5 s a run on a busy machine). The rules, their tags and the page analysed are the same.
 */
export const wcagAxe = (page: Page) => new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true);

export async function expectNoViolations(page: Page) {
  const { violations } = await wcagAxe(page).analyze();
  // The readable summary is the failure message: rule, impact and the offending elements.
  const summary = violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.map((node) => node.target.join(" ")),
  }));
  expect(summary).toEqual([]);
}

/**
 * The page to analyse. axe is a script and needs JavaScript, so for the js-off project the page is opened in a
 * context where JavaScript runs but our bundles (React, Remix, the routes) are replaced by empty modules: the document
 * stays exactly what a visitor without JavaScript gets (server HTML, native popover and form), and only axe runs in it.
 */
export async function pageToAnalyse(page: Page, browser: Browser, testInfo: TestInfo, scheme: Scheme): Promise<Page> {
  if (jsEnabled(testInfo.project.name)) return page;
  const context = await browser.newContext({ ...testInfo.project.use, colorScheme: scheme, javaScriptEnabled: true });
  await context.route(/\/build\/.+\.js$/, (route) =>
    route.fulfill({ status: 200, contentType: "text/javascript", body: "" }),
  );
  return context.newPage();
}
