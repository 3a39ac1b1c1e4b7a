// The newsletter's dialog as the browser tests drive it, and the addresses and posts they sign up with.
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

let sequence = 0;
/** An address no other test (or earlier run against the same server) has used. */
export function freshEmail(projectName: string) {
  sequence += 1;
  return `reader-${projectName}-${Date.now()}-${sequence}@example.com`;
}

export function newsletter(page: Page) {
  const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
  return {
    opener: page.getByRole("button", { name: "Get Updates" }),
    dialog,
    input: dialog.getByLabel("Email address"),
    // Located by type: its label changes to 'Subscribing...' while busy.
    submit: dialog.locator("button[type=submit]"),
    close: dialog.getByRole("button", { name: "Close" }),
    toast: (role: "status" | "alert", title: string) => page.getByRole(role).filter({ hasText: title }),
  };
}

/**
 * The sign-up posts as another site's page would send them: the server's one rule refuses them before the action
 * runs. Chromium sets Fetch Metadata itself, so the request is sent again from the test with the header such a page
 * would carry, and its answer handed to the page.
 */
export async function postAsAnotherSite(page: Page) {
  await page.route(
    (url) => url.searchParams.has("index"),
    async (route) => {
      const headers = { ...route.request().headers(), "sec-fetch-site": "cross-site" };
      await route.fulfill({ response: await route.fetch({ headers, maxRedirects: 0 }) });
    },
  );
}

export async function signUp(page: Page, email: string) {
  const form = newsletter(page);
  await form.opener.click();
  await expect(form.dialog).toBeVisible();
  await form.input.fill(email);
  await form.submit.click();
}

/** Posts as a browser would, but from the test: records an address as already subscribed. */
export async function preSubscribe(baseURL: string, email: string) {
  const response = await fetch(`${baseURL}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
}
