import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
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
import { freshEmail, newsletter, postAsAnotherSite, preSubscribe, signUp } from "./newsletter-page";

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
