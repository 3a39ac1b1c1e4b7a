import type { Browser, Locator, Page } from "@playwright/test";
import { contrastRatio, hex, PixelLab } from "./contrast";
import { expectNoViolations, pageToAnalyse } from "./axe";
import { expect, jsEnabled, standIns, test, visit } from "./fixtures";

// The app server configured with the stub Supabase (playwright.config.ts, webServer): only its home page shows a latest post.
const supabaseApp = () => standIns().supabaseApp;
const stub = () => standIns().stub;

const SCHEMES = ["light", "dark"] as const;

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Get Updates" }).click();
  const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
  await expect(dialog).toBeVisible();
  return dialog;
}

/**
 * Whether the newsletter action exists yet (it answers 405 until the newsletter work is merged). Asked through the
 * `request` fixture, whose cookies are its own: the probe's toast must not show up on the page under test.
 */
/**
 * How well `element`'s focus outline stands out from what is drawn right around it (WCAG 2.2 asks 3:1 of a focus
 * indicator): its computed colour against the colour that covers most of a 2-pixel band just outside it, in a
 * screenshot.
 */
async function focusRingContrast(page: Page, lab: PixelLab, element: Locator) {
  // A button's colours ease in (Tailwind's `transition` includes outline-color): read the ring once it has settled.
  await element.evaluate((target) => Promise.all(target.getAnimations().map((animation) => animation.finished)));
  const ring = await element.evaluate((target) => {
    const style = getComputedStyle(target);
    const rect = target.getBoundingClientRect();
    return {
      color: style.outlineColor,
      reach: parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth),
      rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
    };
  });
  const grow = (by: number) => ({
    x: ring.rect.x - by,
    y: ring.rect.y - by,
    width: ring.rect.width + 2 * by,
    height: ring.rect.height + 2 * by,
  });
  const [color] = await lab.colours([ring.color]);
  const { dominant } = await lab.read(await page.screenshot(), [
    { outer: grow(ring.reach + 3), inner: grow(ring.reach + 1) },
  ]);
  const around = dominant[0]!.rgb;
  return { ring: hex(color!), around: hex(around), ratio: contrastRatio(color!, around) };
}

for (const scheme of SCHEMES) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme });

    test.describe("accessibility (axe, WCAG 2.2 A and AA)", () => {
      /** Runs `check` on the page to analyse (see pageToAnalyse), enhanced first when JavaScript is on. */
      async function analyse(page: Page, browser: Browser, path: string, check: (page: Page) => Promise<void>) {
        const testInfo = test.info();
        const target = await pageToAnalyse(page, browser, testInfo, scheme);
        try {
          const response = await target.goto(path);
          if (response?.ok() && jsEnabled(testInfo.project.name)) {
            await expect(target.locator("html")).toHaveAttribute("data-hydrated", "true");
          }
          await check(target);
        } finally {
          if (target !== page) await target.context().close();
        }
      }

      test("home page with the dialog closed", async ({ page, browser }) => {
        await analyse(page, browser, "/", expectNoViolations);
      });

      test("home page with the newsletter dialog open", async ({ page, browser }) => {
        await analyse(page, browser, "/", async (target) => {
          await openDialog(target);
          await expectNoViolations(target);
        });
      });

      test("home page showing a toast after subscribing", async ({ page, browser }) => {
        await analyse(page, browser, "/", async (target) => {
          const dialog = await openDialog(target);
          await dialog.getByLabel("Email address").fill(`a11y-${test.info().project.name}-${Date.now()}@example.com`);
          await dialog.getByRole("button", { name: "Get Early Access" }).click();
          await expect(target.locator("#toast-region [data-toast]")).toContainText("Successfully subscribed!");
          await expectNoViolations(target);
        });
      });

      test("unsubscribe page, before and after the button", async ({ page, browser }) => {
        await analyse(page, browser, "/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678", async (target) => {
          await expectNoViolations(target);
          await target.getByRole("button", { name: "Unsubscribe" }).click();
          await expect(target.getByRole("heading", { level: 1, name: "You're unsubscribed" })).toBeVisible();
          await expectNoViolations(target);
        });
      });

      test("home page with a latest post (the app with Supabase)", async ({ page, browser, request }) => {
        expect((await request.post(`${stub()}/__stub/reset`)).status()).toBe(204);
        const text = "Shipped the landing page today: three sign-ups already.";
        expect((await request.post(`${stub()}/__stub/function`, { data: { kind: "text", text } })).status()).toBe(204);
        await analyse(page, browser, `${supabaseApp()}/`, async (target) => {
          await expect(target.getByRole("region", { name: "Latest thought" }).getByText(text)).toBeVisible();
          await expectNoViolations(target);
        });
      });

      test("not-found page", async ({ page, browser }) => {
        test.info().annotations.push({
          type: "expects-console-error",
          description: "^Failed to load resource: the server responded with a status of 404",
        });
        await analyse(page, browser, "/no-such-page", async (target) => {
          await expect(target.getByRole("heading", { level: 1, name: "404" })).toBeVisible();
          await expectNoViolations(target);
        });
      });
    });

    test.describe("keyboard", () => {
      // Without smooth scrolling and transitions the screenshot shows the focused element where it settles.
      test.use({ reducedMotion: "reduce" });

      let lab: PixelLab;
      test.beforeAll(async ({ browser }) => {
        lab = await PixelLab.open(browser);
      });
      test.afterAll(async () => {
        await lab.close();
      });

      /**
       * Tabs through `path` from the top: every rendered link, button and field outside a closed dialog is reached, in
       * document order, in view, opaque, with a focus indicator whose ring stands out 3:1 from what surrounds it.
       */
      async function tabThrough(page: Page, path: string, atLeast: number) {
        await page.goto(path);
        if (jsEnabled(test.info().project.name))
          await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");

        // What should be reachable: every rendered link, button and field outside the (closed) dialog.
        const expected = await page.evaluate(() => {
          const candidates = document.querySelectorAll<HTMLElement>(
            "a[href], button, input, select, textarea, [tabindex]",
          );
          return [...candidates]
            .filter((element) => element.tabIndex >= 0 && !element.closest("[hidden], dialog:not([open])"))
            .filter(
              (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== "hidden",
            )
            .map((element) => element.outerHTML.slice(0, 120));
        });
        expect(expected.length).toBeGreaterThanOrEqual(atLeast);
        // No positive tabindex: the focus order is the document order.
        expect(await page.locator("[tabindex]:not([tabindex='0']):not([tabindex='-1'])").count()).toBe(0);

        const reached: string[] = [];
        for (let index = 0; index < expected.length; index++) {
          await page.keyboard.press("Tab");
          const focused = page.locator(":focus");
          await expect(focused).toHaveCount(1);
          reached.push(await focused.evaluate((element) => element.outerHTML.slice(0, 120)));
          // Visible: in the viewport after the browser scrolled to it, opaque (the project link fades in on focus), and
          // drawn with a focus indicator.
          await expect(focused).toBeInViewport();
          await expect(focused).toHaveCSS("opacity", "1");
          const indicator = await focused.evaluate((element) => {
            const style = getComputedStyle(element);
            return {
              outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
              shadow: style.boxShadow !== "none",
            };
          });
          expect(indicator.outline || indicator.shadow, `focus indicator on ${reached.at(-1)}`).toBe(true);
          const ring = await focusRingContrast(page, lab, focused);
          expect(
            ring.ratio,
            `focus ring on ${reached.at(-1)}: ${ring.ring} around ${ring.around}`,
          ).toBeGreaterThanOrEqual(3);
        }
        expect(reached).toEqual(expected);
      }

      test("Tab reaches every link and button in document order, each visibly focused", async ({ page }) => {
        await tabThrough(page, "/", 7);
      });

      test("on the not-found page, Tab reaches every link, each visibly focused", async ({ page }) => {
        test.info().annotations.push({
          type: "expects-console-error",
          description: "^Failed to load resource: the server responded with a status of 404",
        });
        await tabThrough(page, "/no-such-page", 1);
      });

      test("on the unsubscribe page, Tab reaches every link and the button, each visibly focused", async ({ page }) => {
        await tabThrough(page, "/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678", 2);
        await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(1);
      });

      test("the newsletter dialog by keyboard: in, ringed, out with Escape, and a sign-up with Enter", async ({
        page,
      }, testInfo) => {
        await visit(page, "/");
        const opener = page.getByRole("button", { name: "Get Updates" });
        const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
        const input = dialog.getByLabel("Email address");
        const expectRinged = async (element: Locator) => {
          await expect(element).toBeFocused();
          const ring = await focusRingContrast(page, lab, element);
          expect(ring.ratio, `focus ring: ${ring.ring} around ${ring.around}`).toBeGreaterThanOrEqual(3);
        };
        /** Enter on 'Get Updates', then to the e-mail field (where the modal puts focus with JavaScript). */
        const openWithEnter = async () => {
          await page.keyboard.press("Enter");
          await expect(dialog).toBeVisible();
          // Without JavaScript the popover comes next in the Tab order: Tab walks into it, every stop inside and ringed.
          for (
            let presses = 0;
            presses < 4 && !(await input.evaluate((field) => field === document.activeElement));
            presses++
          ) {
            await page.keyboard.press("Tab");
            const focused = page.locator(":focus");
            expect(await focused.evaluate((element) => element.closest("dialog") !== null)).toBe(true);
            await expectRinged(focused);
          }
          await expectRinged(input);
        };

        for (
          let presses = 0;
          presses < 20 && !(await opener.evaluate((b) => b === document.activeElement));
          presses++
        ) {
          await page.keyboard.press("Tab");
        }
        await expectRinged(opener);
        await openWithEnter();
        await page.keyboard.press("Tab");
        await expectRinged(dialog.getByRole("button", { name: "Get Early Access" }));
        await page.keyboard.press("Escape");
        await expect(dialog).toBeHidden();
        await expect(opener).toBeFocused();

        await openWithEnter();
        await page.keyboard.type(`keyboard-${scheme}-${testInfo.project.name}-${Date.now()}@example.com`);
        await page.keyboard.press("Enter");
        await expect(page.getByRole("status").filter({ hasText: "Successfully subscribed!" })).toBeVisible();
      });
    });
  });
}

test.describe("reduced motion", () => {
  // The durations that apply to a hover transition and to a toast's entrance, read from the page's own CSS.
  async function motion(page: Page) {
    return page.evaluate(() => {
      const button = [...document.querySelectorAll("button")].find((b) => b.textContent === "Get Updates")!;
      const toast = document.createElement("div");
      toast.className = "toast toast-enter";
      document.getElementById("toast-region")!.append(toast);
      const seconds = (value: string) => Math.max(...value.split(",").map((part) => parseFloat(part) || 0));
      const result = {
        hoverTransition: seconds(getComputedStyle(button).transitionDuration),
        toastAnimation: seconds(getComputedStyle(toast).animationDuration),
      };
      toast.remove();
      return result;
    });
  }

  test("hover transitions and the toast animation run without reduced motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await page.goto("/");
    const { hoverTransition, toastAnimation } = await motion(page);
    expect(hoverTransition).toBeGreaterThanOrEqual(0.1);
    expect(toastAnimation).toBeGreaterThanOrEqual(0.1);
  });

  test("prefers-reduced-motion turns them (practically) off", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/");
    const { hoverTransition, toastAnimation } = await motion(page);
    expect(hoverTransition).toBeLessThanOrEqual(0.001);
    expect(toastAnimation).toBeLessThanOrEqual(0.001);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior)).toBe("auto");
  });
});
