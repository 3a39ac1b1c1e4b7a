import { challengeDays } from "~/utils/days.server";
import { challenge, links, owner } from "~/content/site";
import { expect, test } from "./fixtures";

// What a link preview, a search engine and a home screen read from the page, as the browser has it (after hydration
// with JavaScript on): the fixture also fails the test on any console error, a CSP refusal included.
test.describe("shared: social card, structured data and icons", () => {
  test("the page announces today's large card, which the server serves at that size", async ({ page }) => {
    await page.goto("/");
    const today = challengeDays(new Date(), challenge);
    const meta = (attribute: string, key: string) => page.locator(`meta[${attribute}="${key}"]`);
    await expect(meta("name", "twitter:card")).toHaveAttribute("content", "summary_large_image");
    await expect(meta("property", "og:image")).toHaveAttribute("content", `${owner.siteUrl}/card.png?d=${today.today}`);
    await expect(meta("property", "og:image:width")).toHaveAttribute("content", "1200");
    await expect(meta("property", "og:image:height")).toHaveAttribute("content", "630");
    await expect(meta("property", "og:image:alt")).toHaveAttribute(
      "content",
      new RegExp(`Day ${today.daysIn} of 365, Challenge Progress: ${today.progressPercent}%`),
    );
    // The card itself, from this server (og:image names the owner's public address).
    const size = await page.evaluate(
      async (src) => {
        const image = new Image();
        image.src = src;
        await image.decode();
        return [image.naturalWidth, image.naturalHeight];
      },
      new URL((await meta("property", "og:image").getAttribute("content")) ?? "").pathname,
    );
    expect(size).toEqual([1200, 630]);
  });

  test("the page carries the owner's ProfilePage as JSON-LD", async ({ page }) => {
    await page.goto("/");
    const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
    expect(blocks).toHaveLength(1);
    const data = JSON.parse(blocks[0]!);
    expect(data["@type"]).toBe("ProfilePage");
    expect(data.mainEntity).toMatchObject({
      "@type": "Person",
      name: owner.name,
      sameAs: [links.social.href, links.code.href, links.professional.href],
    });
  });

  test("the touch icon and the PNG favicon are the sizes their links say", async ({ page }) => {
    await page.goto("/");
    const icons = await page
      .locator('link[rel="apple-touch-icon"], link[rel="icon"][type="image/png"]')
      .evaluateAll((elements) => elements.map((link) => [link.getAttribute("href")!, link.getAttribute("sizes")!]));
    expect(icons.map(([, sizes]) => sizes).sort()).toEqual(["180x180", "48x48"]);
    for (const [href, sizes] of icons) {
      const size = await page.evaluate(async (src) => {
        const image = new Image();
        image.src = src;
        await image.decode();
        return `${image.naturalWidth}x${image.naturalHeight}`;
      }, href!);
      expect(size).toBe(sizes);
    }
  });
});
