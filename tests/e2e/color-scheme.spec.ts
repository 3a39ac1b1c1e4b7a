import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { projects } from "~/content/site";
import { statusStyle } from "~/components/project-status";
import {
  contrastRatio,
  hex,
  hueOf,
  PixelLab,
  relativeLuminance,
  textContrasts,
  visibleText,
  type Rgb,
  type TextContrast,
} from "./contrast";
import { expect, jsEnabled, standIns, test } from "./fixtures";

// The page is measured as the browser draws it: text colours as computed, backgrounds as found in a screenshot (the
// colour that covers most of each text's box), so a gradient, an overlay or a colour that never changed are all seen.

// The app server configured with the stub Supabase: its home page shows a latest post, which the other one cannot.
const supabaseApp = () => standIns().supabaseApp;
const stub = () => standIns().stub;

const SCHEMES = ["light", "dark"] as const;
const WIDTHS = {
  mobile: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
};

/** Hue ranges (HSL degrees) that read as each badge colour of the spec. */
const BADGE_HUES: Record<string, [number, number] | "neutral"> = {
  building: [15, 65], // amber
  launched: [100, 170], // green
  sold: [260, 310], // purple
  idea: [195, 250], // blue
  paused: "neutral", // any other status
};

async function scriptLatestPost(request: APIRequestContext, text: string) {
  expect((await request.post(`${stub()}/__stub/reset`)).status()).toBe(204);
  expect((await request.post(`${stub()}/__stub/function`, { data: { kind: "text", text } })).status()).toBe(204);
}

async function open(page: Page, url: string) {
  await page.goto(url);
  if (jsEnabled(test.info().project.name)) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}

function failing(contrasts: TextContrast[]) {
  return contrasts.filter((entry) => entry.ratio < entry.required);
}

/**
 * The page's canvas colour and how light the whole screenshot is, checked against the scheme; every visible text in
 * it at WCAG AA. Returns the measurements (also attached to the report with the screenshot).
 */
async function checkPage(page: Page, lab: PixelLab, scheme: "light" | "dark", label: string, testInfo: TestInfo) {
  const boxes = await visibleText(page, "body", true);
  const png = await page.screenshot({ fullPage: true });
  await testInfo.attach(`${label}-${scheme}.png`, { body: png, contentType: "image/png" });

  const [canvas] = await lab.colours([await page.evaluate(() => getComputedStyle(document.body).backgroundColor)]);
  const { mean } = await lab.read(png, []);
  const contrasts = await textContrasts(lab, png, boxes);
  await testInfo.attach(`${label}-${scheme}-contrast.json`, {
    body: JSON.stringify({ canvas: hex(canvas!), meanLuminance: mean, contrasts }, null, 2),
    contentType: "application/json",
  });

  if (scheme === "dark") {
    expect(relativeLuminance(canvas!), `page background ${hex(canvas!)}`).toBeLessThan(0.02);
    expect(mean, "mean luminance of the screenshot").toBeLessThan(0.15);
  } else {
    expect(relativeLuminance(canvas!), `page background ${hex(canvas!)}`).toBeGreaterThan(0.85);
    expect(mean, "mean luminance of the screenshot").toBeGreaterThan(0.6);
  }
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("light dark");
  expect(failing(contrasts)).toEqual([]);
  return contrasts;
}

for (const scheme of SCHEMES) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme, reducedMotion: "reduce" });

    let lab: PixelLab;
    test.beforeAll(async ({ browser }) => {
      lab = await PixelLab.open(browser);
    });
    test.afterAll(async () => {
      await lab.close();
    });

    for (const [width, viewport] of Object.entries(WIDTHS)) {
      test(`home page at ${width} width: the page is ${scheme}, its text and badges at WCAG AA`, async ({
        page,
        request,
      }, testInfo) => {
        await page.setViewportSize(viewport);
        await scriptLatestPost(request, "Shipped the landing page today: three sign-ups already.");
        await open(page, `${supabaseApp()}/`);
        await expect(page.getByRole("region", { name: "Latest thought" })).toBeVisible();

        // The page shows some of the five badge colours; a card per status shows them all, drawn by the same CSS.
        const statuses = Object.keys(BADGE_HUES);
        await page.evaluate(
          ({ statuses, from, to }) => {
            const grid = document.querySelector("#projects-title + ul")!;
            for (const [index, status] of statuses.entries()) {
              const item = grid.firstElementChild!.cloneNode(true) as HTMLElement;
              const badge = item.querySelector<HTMLElement>("[class*='bg-badge-']")!;
              badge.className = badge.className.replace(from, to[index]!.className);
              badge.lastElementChild!.textContent = to[index]!.label;
              badge.dataset.probe = status;
              grid.append(item);
            }
          },
          { statuses, from: statusStyle(projects[0]!.status).className, to: statuses.map(statusStyle) },
        );

        const contrasts = await checkPage(page, lab, scheme, `home-${width}`, testInfo);
        // Everything was measured: the hero, the cards, the summary strip, the footer.
        expect(contrasts.length).toBeGreaterThan(60);
        for (const text of ["Latest thought", "Get Updates", "Days In", "Projects Started", "Mission", "Building"]) {
          expect(contrasts.map((entry) => entry.text)).toContain(text);
        }

        // Each badge reads as its colour: background, text and border in its hue (or grey for the neutral one).
        const badges = page.locator("[data-probe]");
        await expect(badges).toHaveCount(statuses.length);
        const png = await page.screenshot({ fullPage: true });
        // Each badge's box and computed colours, then one reading of the screenshot for all of them.
        const measured = await Promise.all(
          statuses.map((status) =>
            page.locator(`[data-probe='${status}']`).evaluate((element) => {
              const rect = element.getBoundingClientRect();
              const style = getComputedStyle(element);
              return {
                box: { x: rect.x + scrollX, y: rect.y + scrollY, width: rect.width, height: rect.height },
                css: [style.color, style.borderTopColor],
              };
            }),
          ),
        );
        const inks = await lab.colours(measured.flatMap(({ css }) => css));
        const { dominant } = await lab.read(
          png,
          measured.map(({ box }, index) => ({ outer: box, unlike: inks[2 * index] })),
        );
        for (const [index, status] of statuses.entries()) {
          const [text, border] = [inks[2 * index], inks[2 * index + 1]];
          const background = dominant[index]!.rgb;
          const colours: [string, Rgb][] = [
            ["background", background],
            ["text", text!],
            ["border", border!],
          ];
          const expected = BADGE_HUES[status]!;
          for (const [part, rgb] of colours) {
            const { hue, chroma } = hueOf(rgb);
            const what = `${status} badge ${part} ${hex(rgb)} (hue ${Math.round(hue)}, chroma ${chroma.toFixed(2)})`;
            if (expected === "neutral") {
              expect(chroma, what).toBeLessThanOrEqual(0.2);
            } else {
              expect(chroma, what).toBeGreaterThanOrEqual(0.08);
              expect(hue >= expected[0] && hue <= expected[1], what).toBe(true);
            }
          }
          expect(contrastRatio(text!, background), `${status} badge text`).toBeGreaterThanOrEqual(4.5);
        }
      });
    }

    test("the dialog and a destructive toast", async ({ page }, testInfo) => {
      await page.setViewportSize(WIDTHS.mobile);
      await open(page, "/");
      await page.getByRole("button", { name: "Get Updates" }).click();
      const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
      await expect(dialog).toBeVisible();
      const dialogBoxes = await visibleText(page, "dialog", false);
      const dialogShot = await page.screenshot();
      await testInfo.attach(`dialog-${scheme}.png`, { body: dialogShot, contentType: "image/png" });
      const inDialog = await textContrasts(lab, dialogShot, dialogBoxes);
      expect(inDialog.length).toBeGreaterThanOrEqual(4);
      expect(failing(inDialog)).toEqual([]);
      // The panel stands apart from the dimmed page behind it.
      const [panel] = await lab.colours([
        await dialog.evaluate((element) => getComputedStyle(element).backgroundColor),
      ]);
      const { dominant } = await lab.read(dialogShot, [
        { outer: { x: 0, y: 0, width: WIDTHS.mobile.width, height: 8 } },
      ]);
      expect(contrastRatio(panel!, dominant[0]!.rgb), "dialog panel against the backdrop").toBeGreaterThan(1.25);

      // An address the browser accepts and the server refuses: the destructive toast, red in either scheme.
      await dialog.getByLabel("Email address").fill("a@b");
      await dialog.getByRole("button", { name: "Get Early Access" }).click();
      const toast = page.locator("[data-toast='error']");
      await expect(toast).toContainText("Invalid email");
      // The pointer on it holds it there (with JavaScript it would dismiss itself after a few seconds).
      await toast.hover({ position: { x: 4, y: 4 } });
      const toastBoxes = await visibleText(page, "[data-toast='error']", false);
      const toastShot = await page.screenshot();
      await testInfo.attach(`toast-error-${scheme}.png`, { body: toastShot, contentType: "image/png" });
      const inToast = await textContrasts(lab, toastShot, toastBoxes);
      expect(inToast.map((entry) => entry.text)).toContain("Invalid email");
      expect(failing(inToast)).toEqual([]);
      const [ink, border] = await lab.colours(
        await toast.evaluate((element) => {
          const style = getComputedStyle(element);
          return [style.color, style.borderTopColor];
        }),
      );
      for (const [part, rgb] of [
        ["text", ink!],
        ["border", border!],
      ] as const) {
        const { hue, chroma } = hueOf(rgb);
        const what = `destructive toast ${part} ${hex(rgb)} (hue ${Math.round(hue)})`;
        expect(chroma, what).toBeGreaterThanOrEqual(0.08);
        expect(hue <= 15 || hue >= 345, what).toBe(true);
      }
    });

    const otherPages: [string, string][] = [
      ["not-found", "/no-such-page"],
      ["unsubscribe", "/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678"],
      ["unsubscribe-incomplete", "/unsubscribe"],
    ];
    for (const [label, path] of otherPages) {
      test(`${label} page: ${scheme}, its text at WCAG AA`, async ({ page }, testInfo) => {
        if (label === "not-found") {
          testInfo.annotations.push({
            type: "expects-console-error",
            description: "^Failed to load resource: the server responded with a status of 404",
          });
        }
        await page.setViewportSize(WIDTHS.mobile);
        await open(page, path);
        const contrasts = await checkPage(page, lab, scheme, label, testInfo);
        expect(contrasts.length).toBeGreaterThanOrEqual(3);
      });
    }

    test("the browser's colour for its own interface follows the scheme", async ({ page }) => {
      await open(page, "/");
      const themeColor = await page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]')].find(
            (meta) => !meta.media || matchMedia(meta.media).matches,
          )?.content,
      );
      expect(themeColor).toBeDefined();
      const [rgb] = await lab.colours([themeColor!]);
      // Light: the brand's indigo; dark: a dark shade that matches the top of the page.
      if (scheme === "dark") expect(relativeLuminance(rgb!)).toBeLessThan(0.05);
      else expect(themeColor).toBe("#4f46e5");
      await expect(page.locator('meta[name="color-scheme"]')).toHaveAttribute("content", "light dark");
    });
  });
}
