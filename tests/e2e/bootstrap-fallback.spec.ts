import { expect, test } from "./fixtures";

// app/perf/bootstrap-scripts.server.ts: the scripts start at the first contentful paint, or after this at the latest.
const FIRST_PAINT_LIMIT_MS = 3_000;

test.describe("the bootstrap without a first-paint entry", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the bootstrap is JavaScript");

  test("hydrates after a bounded wait when the paint entry never comes", async ({ page }) => {
    // An observer that is accepted and never called: what a page loaded in a background tab sees.
    await page.addInitScript(() => {
      const Silent = class {
        static supportedEntryTypes = ["paint"];
        observe() {}
        disconnect() {}
      };
      Object.defineProperty(window, "PerformanceObserver", { value: Silent, configurable: true, writable: true });
    });
    const started = Date.now();
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true", {
      timeout: FIRST_PAINT_LIMIT_MS + 10_000,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(FIRST_PAINT_LIMIT_MS - 500);
  });

  test("hydrates when PerformanceObserver.observe throws", async ({ page }) => {
    await page.addInitScript(() => {
      const Throwing = class {
        static supportedEntryTypes = ["paint"];
        observe() {
          throw new TypeError("observe is not available here");
        }
        disconnect() {}
      };
      Object.defineProperty(window, "PerformanceObserver", { value: Throwing, configurable: true, writable: true });
    });
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true", {
      timeout: FIRST_PAINT_LIMIT_MS + 10_000,
    });
    // The page works as with JavaScript: 'Get Updates' opens the modal.
    await page.getByRole("button", { name: "Get Updates" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
  });
});
