import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import {
  ALREADY_SUBSCRIBED_TOAST,
  CONFIRM_BY_MAIL_NOTE,
  EMAIL_INVALID_MESSAGE,
  EMAIL_TOO_LONG_MESSAGE,
  INVALID_EMAIL_TITLE,
  SOMETHING_WENT_WRONG_TOAST,
  SUBSCRIBED_TOAST,
} from "~/newsletter/sign-up/messages";
import { startServer, type ServerProcess } from "../support/production-server";
import { expect, jsEnabled, test, visit } from "./fixtures";

let sequence = 0;
/** An address no other test (or earlier run against the same server) has used. */
function freshEmail(projectName: string) {
  sequence += 1;
  return `reader-${projectName}-${Date.now()}-${sequence}@example.com`;
}

function newsletter(page: Page) {
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
async function postAsAnotherSite(page: Page) {
  await page.route(
    (url) => url.searchParams.has("index"),
    async (route) => {
      const headers = { ...route.request().headers(), "sec-fetch-site": "cross-site" };
      await route.fulfill({ response: await route.fetch({ headers, maxRedirects: 0 }) });
    },
  );
}

async function signUp(page: Page, email: string) {
  const form = newsletter(page);
  await form.opener.click();
  await expect(form.dialog).toBeVisible();
  await form.input.fill(email);
  await form.submit.click();
}

/** Posts as a browser would, but from the test: records an address as already subscribed. */
async function preSubscribe(baseURL: string, email: string) {
  const response = await fetch(`${baseURL}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
}

test.describe("newsletter sign-up", () => {
  test("the dialog: title, text, labelled input, button, note; opens and closes with its button", async ({ page }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await expect(form.dialog).toBeHidden();
    await form.opener.click();
    await expect(form.dialog).toBeVisible();
    await expect(form.dialog.getByRole("heading", { name: "Get Updates on My Journey" })).toBeVisible();
    await expect(form.input).toHaveAttribute("type", "email");
    await expect(form.input).toHaveAttribute("required", "");
    await expect(form.input).toHaveAttribute("placeholder", "Enter your email address");
    await expect(form.submit).toHaveText("Get Early Access");
    await expect(form.dialog.getByText("Join the journey • No spam • Unsubscribe anytime")).toBeVisible();
    await form.close.click();
    await expect(form.dialog).toBeHidden();
  });

  test("the honeypot stays hidden without the stylesheet too, and tells anyone who sees it to leave it empty", async ({
    page,
  }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await form.opener.click();
    await expect(form.dialog).toBeVisible();
    // As a browser that ignores CSS (w3m, lynx, a reader mode) shows the page: the site's own styles gone, the
    // browser's built-in ones (which hide `hidden`) kept.
    await page.evaluate(() =>
      document.querySelectorAll("style, link[rel=stylesheet]").forEach((node) => node.remove()),
    );
    await expect(form.input).toBeVisible();
    const honeypot = form.dialog.locator("input[name=website]");
    await expect(honeypot).toBeHidden();
    // The field keeps its name (bots look for it) and is never reached by Tab or announced.
    await expect(honeypot).toHaveAttribute("tabindex", "-1");
    const label = form.dialog.locator(`label[for="${await honeypot.getAttribute("id")}"]`);
    await expect(label).toHaveText(/leave this field empty/i);
  });

  test("Escape closes the dialog", async ({ page }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await form.opener.click();
    await expect(form.dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(form.dialog).toBeHidden();
  });

  test("a new address: success toast (a status), dialog closed, input cleared", async ({ page }, testInfo) => {
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, freshEmail(testInfo.project.name));
    const toast = form.toast("status", SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    await expect(toast).toContainText(SUBSCRIBED_TOAST.description);
    // Mail is off on this server: the sign-up counts at once, so there is no second step to tell of.
    await expect(toast).not.toContainText(CONFIRM_BY_MAIL_NOTE);
    await expect(form.dialog).toBeHidden();
    await form.opener.click();
    await expect(form.input).toHaveValue("");
  });

  test("an address the browser accepts but the server does not: 'Invalid email' alert", async ({ page }) => {
    await visit(page, "/");
    const form = newsletter(page);
    // "a@b" passes the browser's own type=email check but has no top-level domain.
    await signUp(page, "a@b");
    const toast = form.toast("alert", INVALID_EMAIL_TITLE);
    await expect(toast).toBeVisible();
    await expect(toast).toContainText(EMAIL_INVALID_MESSAGE);
  });

  // The spec's answers for a doubled dot (the browser takes it) and for an address that is simply too long.
  for (const [label, email, message] of [
    ["a doubled dot in the local part", "john..doe@example.com", EMAIL_INVALID_MESSAGE],
    ["262 characters", `${"a".repeat(250)}@example.com`, EMAIL_TOO_LONG_MESSAGE],
  ] as const) {
    test(`an address with ${label}: 'Invalid email' / '${message}'`, async ({ page }) => {
      await visit(page, "/");
      const form = newsletter(page);
      await form.opener.click();
      // A person cannot type past `maxlength`; a pasted or scripted value can, and the server must answer it.
      await form.input.evaluate((input) => input.removeAttribute("maxlength"));
      await form.input.fill(email);
      await form.submit.click();
      const toast = form.toast("alert", INVALID_EMAIL_TITLE);
      await expect(toast).toBeVisible();
      await expect(toast).toContainText(message);
      await expect(page.getByRole("status").filter({ hasText: SUBSCRIBED_TOAST.message })).toHaveCount(0);
    });
  }

  test("an address already on the list: 'Already subscribed'", async ({ page, baseURL }, testInfo) => {
    const email = freshEmail(testInfo.project.name);
    await preSubscribe(baseURL!, email);
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, email.toUpperCase());
    const toast = form.toast("status", ALREADY_SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    await expect(toast).toContainText(ALREADY_SUBSCRIBED_TOAST.description);
  });

  test.describe("over the rate limit", () => {
    // A server of its own, limited to one sign-up per client a minute; behind a trusted "proxy" so each test can be
    // a different client by its X-Forwarded-For header.
    let limited: ServerProcess;
    let dataDir: string;
    test.beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), "portfolio-e2e-limited-"));
      limited = await startServer({
        env: { SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "1", TRUST_PROXY: "true", DATA_DIR: dataDir },
      });
    });
    test.afterAll(async () => {
      await limited?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test("the second sign-up in a minute gets 'Something went wrong' (an alert)", async ({ page }, testInfo) => {
      const client = `198.51.100.${jsEnabled(testInfo.project.name) ? 1 : 2}`;
      await page.setExtraHTTPHeaders({ "X-Forwarded-For": client });
      await visit(page, limited.url);
      const form = newsletter(page);
      await signUp(page, freshEmail(testInfo.project.name));
      await expect(form.toast("status", SUBSCRIBED_TOAST.message)).toBeVisible();
      await signUp(page, freshEmail(testInfo.project.name));
      const toast = form.toast("alert", SOMETHING_WENT_WRONG_TOAST.message);
      await expect(toast).toBeVisible();
      await expect(toast).toContainText(SOMETHING_WENT_WRONG_TOAST.description);
    });
  });
});

test.describe("newsletter sign-up with JavaScript", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "React takes over only with JavaScript");

  test("is a modal: focus moves to the input, and back to 'Get Updates' on close", async ({ page }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await form.opener.click();
    await expect(form.input).toBeFocused();
    expect(await form.dialog.evaluate((dialog: HTMLDialogElement) => dialog.matches(":modal"))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(form.dialog).toBeHidden();
    await expect(form.opener).toBeFocused();

    await form.opener.click();
    await expect(form.input).toBeFocused();
    await form.close.click();
    await expect(form.opener).toBeFocused();
  });

  test("reopens when 'Get Updates' is pressed right after Escape, before the browser's close event", async ({
    page,
  }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await form.opener.click();
    await expect(form.input).toBeFocused();
    // The browser closes the dialog on Escape and fires its close event in a later task: a quick visitor's press lands
    // in between. Pressing 'Get Updates' as that event starts is the same order, every run.
    await page.evaluate(() =>
      addEventListener("close", () => document.getElementById("get-updates")?.click(), { capture: true, once: true }),
    );
    await page.keyboard.press("Escape");
    await expect(form.dialog).toBeVisible();
    await expect(form.input).toBeFocused();
  });

  test("shows 'Subscribing...' with input and button disabled while the server works", async ({ page }, testInfo) => {
    await visit(page, "/");
    const form = newsletter(page);
    // Hold the real request until the busy state has been checked, then let it through unchanged.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.searchParams.has("index"),
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await signUp(page, freshEmail(testInfo.project.name));
    await expect(form.submit).toHaveText("Subscribing...");
    await expect(form.submit).toBeDisabled();
    await expect(form.input).toBeDisabled();
    release();
    await expect(form.toast("status", SUBSCRIBED_TOAST.message)).toBeVisible();
    await expect(form.dialog).toBeHidden();
    await expect(form.opener).toBeFocused();
    await form.opener.click();
    await expect(form.submit).toHaveText("Get Early Access");
    await expect(form.submit).toBeEnabled();
    await expect(form.input).toBeEnabled();
    await expect(form.input).toHaveValue("");
  });

  test("keeps the dialog open on an error, shows the alert inside it and puts focus back in the input", async ({
    page,
  }) => {
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, "a@b");
    const toast = form.dialog.getByRole("alert").filter({ hasText: INVALID_EMAIL_TITLE });
    await expect(toast).toBeVisible();
    await expect(form.dialog).toBeVisible();
    await expect(form.input).toBeFocused();
    await expect(form.input).toHaveValue("a@b");
    // Closing hands the toast over to the page.
    await form.close.click();
    await expect(page.locator("#toast-region").getByRole("alert")).toContainText(INVALID_EMAIL_TITLE);
  });

  test("shows 'Something went wrong' when no answer comes back at all", async ({ page }, testInfo) => {
    testInfo.annotations.push(
      // Chromium logs the aborted request, and the page says it got no answer.
      { type: "expects-console-error", description: "^Failed to load resource: net::ERR_CONNECTION_RESET$" },
      { type: "expects-console-error", description: "^Newsletter: the sign-up got no answer" },
    );
    await visit(page, "/");
    const form = newsletter(page);
    await page.route(
      (url) => url.searchParams.has("index"),
      (route) => route.abort("connectionreset"),
    );
    await signUp(page, freshEmail(testInfo.project.name));
    await expect(form.toast("alert", SOMETHING_WENT_WRONG_TOAST.message)).toBeVisible();
    await expect(form.dialog).toBeVisible();
  });

  test("shows 'Something went wrong' when the server refuses the post as cross-site", async ({ page }, testInfo) => {
    testInfo.annotations.push(
      { type: "expects-console-error", description: "status of 403 \\(Forbidden\\)$" },
      // Remix logs an answer that is not its own data format (the refusal is a plain page) before it throws.
      { type: "expects-console-error", description: "^SyntaxError" },
      { type: "expects-console-error", description: "^Newsletter: the sign-up got no answer" },
    );
    await visit(page, "/");
    const form = newsletter(page);
    await postAsAnotherSite(page);
    await signUp(page, freshEmail(testInfo.project.name));
    await expect(form.toast("alert", SOMETHING_WENT_WRONG_TOAST.message)).toBeVisible();
    await expect(form.dialog).toBeVisible();
  });

  test("the toast dismisses itself after a few seconds, or at once with its close button", async ({
    page,
  }, testInfo) => {
    // The page's timers run on Playwright's clock: the wait is fast-forwarded, not spent.
    await page.clock.install();
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, freshEmail(testInfo.project.name));
    const toast = form.toast("status", SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    await page.clock.fastForward(5_000);
    await expect(toast).toBeVisible();
    await page.clock.fastForward(2_000);
    await expect(toast).toBeHidden();

    await signUp(page, "a@b");
    const alert = form.toast("alert", INVALID_EMAIL_TITLE);
    await expect(alert).toBeVisible();
    // With JavaScript the close link dismisses in place: the page is not loaded again (the marker survives).
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await alert.getByRole("link", { name: "Dismiss notification" }).click();
    await expect(alert).toBeHidden();
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  });
});

test.describe("toasts with JavaScript", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "React takes over only with JavaScript");

  test("a toast already in the server's HTML is hydrated as it is, then dismisses itself", async ({
    page,
    baseURL,
  }, testInfo) => {
    // A sign-up posted before the page loads (as without JavaScript): the page arrives with the toast in its HTML.
    const response = await fetch(`${baseURL}/?index`, {
      method: "POST",
      body: new URLSearchParams({ email: freshEmail(testInfo.project.name), website: "" }),
      redirect: "manual",
    });
    const flash = response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!.split("="));
    await page
      .context()
      .addCookies(flash.map(([name, ...value]) => ({ name: name!, value: value.join("="), url: baseURL! })));
    await page.clock.install();
    await visit(page, "/");
    const toast = newsletter(page).toast("status", SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    // The fixture fails the test on any hydration warning or error; React now runs the toast's timer.
    await page.clock.fastForward(7_000);
    await expect(toast).toBeHidden();
  });

  test("a toast stays while the pointer rests on it, and goes once it leaves", async ({ page }, testInfo) => {
    await page.clock.install();
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, freshEmail(testInfo.project.name));
    const toast = form.toast("status", SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    await toast.hover();
    // Longer than a toast shows on its own (6 s): hovered, it is still there.
    await page.clock.fastForward(20_000);
    await expect(toast).toBeVisible();
    await page.mouse.move(0, 0);
    await page.clock.fastForward(7_000);
    await expect(toast).toBeHidden();
  });
});

test.describe("newsletter sign-up without JavaScript", () => {
  test.skip(({ javaScriptEnabled }) => javaScriptEnabled, "checks the plain HTML behaviour");

  test("opens as a popover, posts the form, and shows the toast after the reload until closed", async ({
    page,
  }, testInfo) => {
    await visit(page, "/");
    const form = newsletter(page);
    await signUp(page, freshEmail(testInfo.project.name));
    await page.waitForURL((url) => url.pathname === "/" && url.search === "");
    const toast = form.toast("status", SUBSCRIBED_TOAST.message);
    await expect(toast).toBeVisible();
    await expect(form.dialog).toBeHidden();
    // Nothing dismisses it without JavaScript but its close link, which loads the page again.
    await toast.getByRole("link", { name: "Dismiss notification" }).click();
    await expect(toast).toBeHidden();
    await page.reload();
    await expect(page.getByRole("status")).toHaveCount(0);
  });

  test("a post refused as cross-site gets a clear 403 page, not an error", async ({ page }, testInfo) => {
    testInfo.annotations.push({ type: "expects-console-error", description: "status of 403 \\(Forbidden\\)$" });
    await visit(page, "/");
    await postAsAnotherSite(page);
    await signUp(page, freshEmail(testInfo.project.name));
    await expect(page.getByRole("heading", { name: "Request refused" })).toBeVisible();
    await expect(page.getByText("This form can only be sent from this site's own pages.")).toBeVisible();
    await page.getByRole("link", { name: "Return to Home" }).click();
    await expect(page.getByRole("button", { name: "Get Updates" })).toBeVisible();
  });
});
