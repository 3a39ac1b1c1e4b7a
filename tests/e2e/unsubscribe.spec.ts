import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page } from "@playwright/test";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { expect, standIns, test, visit } from "./fixtures";

let sequence = 0;

/** Signs up through the site, then reads the address's token from the embedded store, as the owner's export does. */
async function subscribedToken(baseURL: string, projectName: string): Promise<{ email: string; token: string }> {
  sequence += 1;
  const email = `leaving-${projectName}-${Date.now()}-${sequence}@example.com`;
  const response = await fetch(`${baseURL}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  return { email, token: tokenOf(email)! };
}

function tokenOf(email: string): string | undefined {
  const db = new DatabaseSync(path.join(standIns().dataDir, SQLITE_FILE_NAME), { readOnly: true });
  try {
    const row = db.prepare("select unsubscribe_token as token from newsletter_subscribers where email = ?").get(email);
    return (row as { token?: string } | undefined)?.token;
  } finally {
    db.close();
  }
}

const button = (page: Page) => page.getByRole("button", { name: /^Unsubscrib/ });

test.describe("unsubscribe page", () => {
  test("takes the reader off the list with one button, then says so", async ({ page, baseURL }, testInfo) => {
    const { email, token } = await subscribedToken(baseURL!, testInfo.project.name);
    await visit(page, `/unsubscribe?token=${token}`);
    await expect(page.getByRole("heading", { level: 1, name: "Unsubscribe" })).toBeVisible();
    await button(page).click();
    await expect(page.getByRole("heading", { level: 1, name: "You're unsubscribed" })).toBeVisible();
    await expect(page.getByRole("status")).toContainText("You won't get any more updates from me.");
    await expect(button(page)).toHaveCount(0);
    expect(tokenOf(email)).toBeUndefined();
    await page.getByRole("link", { name: "Return to Home" }).click();
    await expect(page).toHaveURL(/\/$/);
  });

  test("answers a link that was already used exactly as a good one", async ({ page, baseURL }, testInfo) => {
    const { token } = await subscribedToken(baseURL!, testInfo.project.name);
    for (let time = 0; time < 2; time++) {
      await visit(page, `/unsubscribe?token=${token}`);
      await button(page).click();
      await expect(page.getByRole("heading", { level: 1, name: "You're unsubscribed" })).toBeVisible();
    }
  });

  test("shows 'Unsubscribing...' on its disabled button while the server works", async ({
    page,
    baseURL,
    javaScriptEnabled,
  }, testInfo) => {
    test.skip(!javaScriptEnabled, "a busy state needs JavaScript");
    const { token } = await subscribedToken(baseURL!, testInfo.project.name);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === "/unsubscribe.data",
      async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      },
    );
    await visit(page, `/unsubscribe?token=${token}`);
    await button(page).click();
    await expect(button(page)).toHaveText("Unsubscribing...");
    await expect(button(page)).toBeDisabled();
    release();
    await expect(page.getByRole("heading", { level: 1, name: "You're unsubscribed" })).toBeVisible();
  });

  test("explains an incomplete link instead of a 404", async ({ page }) => {
    const response = await page.goto("/unsubscribe?token=oops");
    expect(response?.status()).toBe(200);
    await expect(page.getByText("This unsubscribe link is incomplete.")).toBeVisible();
    await expect(button(page)).toHaveCount(0);
  });
});
