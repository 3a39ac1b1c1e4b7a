// The sign-up dialog and its toasts with JavaScript: focus, busy state, errors kept in the dialog, dismissal (the
// sign-up in both projects: newsletter.spec.ts).
import { INVALID_EMAIL_TITLE, SOMETHING_WENT_WRONG_TOAST, SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { expect, test, visit } from "./fixtures";
import { freshEmail, newsletter, postAsAnotherSite, signUp } from "./newsletter-page";

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
