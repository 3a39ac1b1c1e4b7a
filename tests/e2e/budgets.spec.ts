import { gzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { owner } from "~/content/site";
import { expect, jsEnabled, test } from "./fixtures";

const KiB = 1024;
const BUDGET = { js: 100 * KiB, css: 12 * KiB, html: 20 * KiB };

// Sizes are measured by gzipping what the browser received (zlib's default level), so they do not depend on how the
// server happened to compress it.
const gzipped = (body: Buffer | string) => gzipSync(body).length;

interface Loaded {
  url: string;
  type: string;
  body: Buffer;
}

/** Everything the page loads while opening `/` (and until the network is idle), with the bodies as decoded. */
async function load(page: Page): Promise<Loaded[]> {
  const pending: Promise<Loaded | null>[] = [];
  page.on("response", (response) => {
    pending.push(
      response
        .body()
        .then((body) => ({ url: response.url(), type: response.request().resourceType(), body }))
        .catch(() => null),
    );
  });
  await page.goto("/", { waitUntil: "networkidle" });
  // The scripts are asked for only after the first paint, which a busy machine can present after the network has
  // been idle for a while: with JavaScript, the page is measured once React runs it (every module has arrived).
  if (jsEnabled(test.info().project.name)) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  return (await Promise.all(pending)).filter((loaded): loaded is Loaded => loaded !== null);
}

test.describe("budgets for /", () => {
  test("JS ≤ 100 KiB, CSS ≤ 12 KiB and HTML ≤ 20 KiB, gzip", async ({ page }) => {
    const loaded = await load(page);
    const scripts = loaded.filter((item) => item.type === "script");
    const stylesheets = loaded.filter((item) => item.type === "stylesheet");
    const documents = loaded.filter((item) => item.type === "document");
    expect(documents).toHaveLength(1);
    // Inline styles would count as CSS too (the page has none: its one stylesheet is linked).
    const inlineCss = await page.locator("style").allTextContents();

    const js = scripts.reduce((sum, item) => sum + gzipped(item.body), 0);
    const css = stylesheets.reduce((sum, item) => sum + gzipped(item.body), 0) + gzipped(inlineCss.join(""));
    const html = gzipped(documents[0]!.body);
    const files = scripts.map((item) => `${new URL(item.url).pathname} ${gzipped(item.body)}`).join(", ");
    test.info().annotations.push({
      type: "sizes (gzip)",
      description: `JS ${(js / KiB).toFixed(1)} KiB in ${scripts.length} file(s) (${files}), CSS ${(css / KiB).toFixed(1)} KiB, HTML ${(html / KiB).toFixed(1)} KiB`,
    });

    if (jsEnabled(test.info().project.name)) {
      // React, Remix and the routes are loaded and running: the measure covers the whole hydrated page.
      expect(scripts.map((item) => new URL(item.url).pathname)).toContainEqual(
        expect.stringMatching(/^\/build\/entry\.client-/),
      );
      expect(await page.evaluate(() => "__remixRouter" in window)).toBe(true);
    } else {
      expect(scripts).toEqual([]);
    }
    expect(js).toBeLessThanOrEqual(BUDGET.js);
    expect(css).toBeGreaterThan(1 * KiB);
    expect(css).toBeLessThanOrEqual(BUDGET.css);
    expect(html).toBeLessThanOrEqual(BUDGET.html);
  });

  test("every image has its size set, and the owner's photo is small and in a modern format", async ({ page }) => {
    await page.goto("/");
    const images = page.locator("img");
    expect(await images.count()).toBeGreaterThan(0);
    for (const img of await images.all()) {
      await expect(img).toHaveAttribute("width", /^[1-9]\d*$/);
      await expect(img).toHaveAttribute("height", /^[1-9]\d*$/);
      // The reserved box has the picture's own proportions, so it is not distorted either.
      const ratios = await img.evaluate((element: HTMLImageElement) => ({
        declared: element.width / element.height,
        natural: element.naturalWidth / element.naturalHeight,
      }));
      expect(ratios.natural).toBeCloseTo(ratios.declared, 2);
    }

    const photo = await page.request.get(owner.photo.src);
    expect(photo.ok()).toBe(true);
    const body = await photo.body();
    expect(body.length).toBeLessThan(10 * 1000);
    const webp =
      body.subarray(0, 4).toString("latin1") === "RIFF" && body.subarray(8, 12).toString("latin1") === "WEBP";
    const avif = body.subarray(4, 12).toString("latin1") === "ftypavif";
    expect(webp || avif, "the photo is WebP or AVIF").toBe(true);
    expect(photo.headers()["content-type"]).toMatch(/^image\/(webp|avif)$/);
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ]) {
    test(`no layout shift while / loads (${viewport.width}×${viewport.height})`, async ({
      page,
      javaScriptEnabled,
    }) => {
      test.skip(!javaScriptEnabled, "measured in the page with a PerformanceObserver (JS on)");
      await page.setViewportSize(viewport);
      // Installed before any page script, so shifts from the very first paint are recorded.
      await page.addInitScript(() => {
        const shifts: number[] = [];
        (window as unknown as { __shifts: number[] }).__shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
            if (!entry.hadRecentInput) shifts.push(entry.value);
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      await page.goto("/", { waitUntil: "load" });
      await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
      // Two frames after load: anything the load caused has been laid out and reported.
      const shiftsAfterTwoFrames = () =>
        page.evaluate(
          () =>
            new Promise<number[]>((resolve) =>
              requestAnimationFrame(() =>
                requestAnimationFrame(() => resolve([...(window as unknown as { __shifts: number[] }).__shifts])),
              ),
            ),
        );
      const shifts = await shiftsAfterTwoFrames();
      expect(shifts.reduce((sum, value) => sum + value, 0)).toBe(0);

      // The probe itself works: pushing the page down is seen as a shift.
      await page.evaluate(() => {
        const spacer = document.createElement("div");
        spacer.style.height = "200px";
        document.body.prepend(spacer);
      });
      await expect.poll(async () => (await shiftsAfterTwoFrames()).length).toBeGreaterThan(0);
    });
  }
});
