import type { APIRequestContext } from "@playwright/test";
import { links } from "~/content/site";
import type { FunctionBehaviour } from "../support/stub-supabase/stub";
import { expect, standIns, test } from "./fixtures";

// These tests use the second app server (configured with the stub Supabase, cache off), not the default one.
const app = () => standIns().supabaseApp;
const stub = () => standIns().stub;
const anonKey = () => standIns().stubAnonKey;

async function functionAnswers(request: APIRequestContext, behaviour: FunctionBehaviour) {
  expect((await request.post(`${stub()}/__stub/reset`)).status()).toBe(204);
  expect((await request.post(`${stub()}/__stub/function`, { data: behaviour })).status()).toBe(204);
}

async function functionCalls(request: APIRequestContext): Promise<number> {
  const state = (await (await request.get(`${stub()}/__stub/state`)).json()) as { functionCalls: number };
  return state.functionCalls;
}

test.describe("latest-post card", () => {
  test("shows 'Latest thought', the post as text and a link to the social profile", async ({ page, request }) => {
    const text = "Shipped SubTrackr's landing page <b>today</b>: 3 sign-ups already & counting.";
    await functionAnswers(request, { kind: "text", text });
    await page.goto(`${app()}/`);

    const card = page.getByRole("region", { name: "Latest thought" });
    await expect(card).toBeVisible();
    await expect(card.getByRole("heading", { name: "Latest thought" })).toBeVisible();
    // The markup in the post is shown as characters, never interpreted.
    await expect(card.getByText(text, { exact: true })).toBeVisible();
    await expect(card.locator("b")).toHaveCount(0);
    const link = card.getByRole("link", { name: `Follow on ${links.social.label}` });
    await expect(link).toHaveAttribute("href", links.social.href);
    await expect(link).toHaveAttribute("rel", /noopener/);
    // The card sits in the hero, between the stat tiles and the challenge description.
    const hero = page.locator("section", { has: page.getByRole("heading", { level: 1 }) });
    await expect(hero.getByRole("region", { name: "Latest thought" })).toHaveCount(1);
    expect(await functionCalls(request)).toBe(1);
  });

  test("keeps a long post inside the card", async ({ page, request }) => {
    const longWord = "https://example.com/" + "a".repeat(400);
    await functionAnswers(request, { kind: "text", text: `${"A rather long thought. ".repeat(60)}${longWord}` });
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(`${app()}/`);
    const card = page.getByRole("region", { name: "Latest thought" });
    await expect(card).toBeVisible();
    const overflow = await card.evaluate((element) => {
      const text = element.querySelector("p")!;
      return {
        cardWider: element.scrollWidth > element.clientWidth,
        pageWider: document.documentElement.scrollWidth > document.documentElement.clientWidth,
        clamped: text.scrollHeight > text.clientHeight,
      };
    });
    expect(overflow).toEqual({ cardWider: false, pageWider: false, clamped: true });
  });

  const failures: [string, FunctionBehaviour][] = [
    ["reports an error", { kind: "data-error", error: "Rate limit exceeded" }],
    ["answers HTTP 500", { kind: "http-error", status: 500 }],
    ["answers an empty text", { kind: "json", body: { text: "" } }],
  ];
  for (const [name, behaviour] of failures) {
    test(`shows no card when the function ${name}`, async ({ page, request }) => {
      await functionAnswers(request, behaviour);
      const response = await page.goto(`${app()}/`);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(page.getByRole("heading", { name: "The 365-Day Challenge" })).toBeVisible();
      await expect(page.getByText("Latest thought")).toHaveCount(0);
      expect(await functionCalls(request)).toBe(1);
    });
  }

  test("the anon key never reaches the browser", async ({ page, request }) => {
    await functionAnswers(request, { kind: "text", text: "Keys stay on the server." });
    const response = await request.get(`${app()}/`);
    const html = await response.text();
    expect(html).toContain("Keys stay on the server.");
    expect(html).not.toContain(anonKey());
    expect(JSON.stringify(response.headers())).not.toContain(anonKey());

    // Nor does anything the page loads with it.
    const bodies: Promise<string>[] = [];
    page.on("response", (loaded) => {
      if (loaded.request().resourceType() !== "image") bodies.push(loaded.text().catch(() => ""));
    });
    await page.goto(`${app()}/`);
    await page.waitForLoadState("networkidle");
    const texts = await Promise.all(bodies);
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) expect(text).not.toContain(anonKey());
  });
});
