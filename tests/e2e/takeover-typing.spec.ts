import { rmSync } from "node:fs";
import type { Page } from "@playwright/test";
import { SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { startServer, tempDir, type ServerProcess } from "../support/production-server";
import { storedEmails } from "../support/newsletter/http";
import { expect, test } from "./fixtures";

/**
 * A visitor opens 'Get Updates' before the scripts have run (the plain popover) and types while React takes it over
 * (the modal): every key must land in the field, and the stored address must be the typed one. Slowed down as a
 * low-end phone on a slow link, so the takeover happens in the middle of the typing.
 */
const RUNS = Number(process.env.TAKEOVER_RUNS ?? 6);
const CPU_SLOWDOWN = 6;
// 400 kbit/s down, 200 up, 150 ms round trip.
const NETWORK = { offline: false, latency: 150, downloadThroughput: 50_000, uploadThroughput: 25_000 };
const KEY_DELAY_MS = 45;

let server: ServerProcess;
let dataDir: string;

test.describe("typing through the takeover of the open popover", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the takeover is React's");
  test.setTimeout(RUNS * 60_000 + 30_000);

  test.beforeAll(async () => {
    dataDir = tempDir("portfolio-takeover-");
    server = await startServer({ env: { DATA_DIR: dataDir, SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0" } });
  });

  test.afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Records when each key reached the page and when React took over, on the page's own clock. */
  async function recordTimeline(page: Page) {
    await page.addInitScript(() => {
      const timeline = { keys: [] as number[], hydratedAt: null as number | null };
      Object.assign(window, { __timeline: timeline });
      addEventListener("keydown", () => timeline.keys.push(performance.now()), true);
      new MutationObserver(() => {
        if (timeline.hydratedAt === null && document.documentElement.dataset.hydrated) {
          timeline.hydratedAt = performance.now();
        }
      }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-hydrated"] });
    });
  }

  test(`keeps every key, ${RUNS} runs at ${CPU_SLOWDOWN}× CPU slowdown on a 400 kbit/s link`, async ({ browser }) => {
    const results: { typed: string; field: string; crossed: boolean }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", NETWORK);
      await recordTimeline(page);

      await page.goto(server.url, { waitUntil: "commit" });
      await page.getByRole("button", { name: "Get Updates" }).click();
      const input = page.getByLabel("Email address");
      await input.click();
      expect(await page.locator("html").getAttribute("data-hydrated"), `run ${run}: hydrated before typing`).toBeNull();

      const typed = `margaret.h${run}.${Date.now()}-${"abcdefghij".repeat(2)}@example.com`;
      await page.keyboard.type(typed, { delay: KEY_DELAY_MS });
      // Until React has taken the page over, or something went wrong in it.
      await expect
        .poll(async () => errors.length > 0 || (await page.locator("html").getAttribute("data-hydrated")) === "true", {
          timeout: 60_000,
        })
        .toBe(true);
      // Nothing may go wrong: a key that reached React before its first render once made it give up the whole page
      // ("Root did not complete", React error #345), leaving it without JavaScript (app/takeover/).
      expect(errors, `run ${run}`).toEqual([]);
      const field = await input.inputValue();
      const timeline = await page.evaluate(
        () => (window as unknown as { __timeline: { keys: number[]; hydratedAt: number | null } }).__timeline,
      );
      const { keys, hydratedAt } = timeline;
      const crossed = hydratedAt !== null && keys[0]! < hydratedAt && hydratedAt < keys.at(-1)!;
      results.push({ typed, field, crossed });

      if (field === typed) {
        await page.keyboard.press("Enter");
        await expect(page.getByRole("status").filter({ hasText: SUBSCRIBED_TOAST.message })).toBeVisible({
          timeout: 30_000,
        });
      }
      await context.close();
      expect(errors, `run ${run}: after the sign-up`).toEqual([]);
    }

    const report = results.map(
      ({ typed, field, crossed }) =>
        `${crossed ? "typed through the takeover" : "takeover outside the typing"}: ` +
        `${field === typed ? "kept" : `LOST (${field})`} ${typed}`,
    );
    test.info().annotations.push({ type: "runs", description: report.join("\n") });
    // Every run keeps exactly what was typed, and stores it.
    expect(
      results.map(({ field }) => field),
      report.join("\n"),
    ).toEqual(results.map(({ typed }) => typed));
    const stored = storedEmails(dataDir);
    for (const { typed } of results) expect(stored).toContain(typed);
    // The runs are worth something only if React took over while the keys came in.
    expect(results.filter(({ crossed }) => crossed).length, report.join("\n")).toBeGreaterThanOrEqual(RUNS / 3);
  });
});
