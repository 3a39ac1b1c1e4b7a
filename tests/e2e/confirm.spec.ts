/**
 * The confirm page in a real browser, JavaScript on and off: a server of this file's own with mail on, a real SMTP
 * server on loopback; the link from the received mail opens a page that changes nothing, its button confirms.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type ServerProcess, startServer, tempDir } from "../support/server-process.mjs";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { CONFIRM_BY_MAIL_NOTE, SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { expectNoViolations, pageToAnalyse, type Scheme } from "./axe";
import { expect, jsEnabled, test, visit } from "./fixtures";

let relay: TestSmtpServer;
let server: ServerProcess;
let dataDir: string;

test.beforeAll(async () => {
  relay = await startSmtpServer();
  dataDir = tempDir("portfolio-e2e-confirm-");
  server = await startServer({
    env: { DATA_DIR: dataDir, SMTP_URL: relay.url(), MAIL_FROM: "Alex Placeholder <updates@example.com>" },
  });
});
test.afterAll(async () => {
  await server?.stop();
  await relay?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const stateOf = (email: string) => {
  const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"), { readOnly: true });
  try {
    const row = db.prepare("select state from newsletter_subscribers where email = ?").get(email);
    return (row as { state?: string } | undefined)?.state;
  } finally {
    db.close();
  }
};

test("the mailed link shows a 'Confirm' button that confirms; opening it changes nothing", async ({
  page,
}, testInfo) => {
  const email = `confirm-${testInfo.project.name}-${Date.now()}@example.com`;
  const already = relay.mails.length;
  // The sign-up as a visitor without JavaScript sends it: the form's plain post.
  const response = await fetch(`${server.url}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  const mails = await relay.waitForMails(already + 1, 10_000);
  const text = mails[already]!.parsed.text ?? "";
  const token = /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;

  await visit(page, `${server.url}/confirm?token=${token}`);
  await expect(page.getByRole("heading", { level: 1, name: "Confirm your subscription" })).toBeVisible();
  await page.reload();
  expect(stateOf(email)).toBe("pending");

  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "You're subscribed" })).toBeVisible();
  await expect(page.getByRole("status")).toContainText("Thanks for confirming!");
  await expect(page.getByRole("button", { name: "Confirm" })).toHaveCount(0);
  expect(stateOf(email)).toBe("confirmed");
  // Not a dead end: what they signed up for is one link away.
  await expect(page.getByRole("link", { name: "Read the latest updates" })).toHaveAttribute("href", "/updates");

  // The same link again, as from the mail a second time: the reader is told they are on the list, not to sign up.
  await visit(page, `${server.url}/confirm?token=${token}`);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "You're already on the list" })).toBeVisible();
  await expect(page.getByRole("status")).not.toContainText("sign up again");
  await expect(page.getByRole("link", { name: "Read the latest updates" })).toBeVisible();
  expect(stateOf(email)).toBe("confirmed");
});

test("with mail on, the success toast keeps the spec's words and says the second step", async ({ page }, testInfo) => {
  const email = `second-step-${testInfo.project.name}-${Date.now()}@example.com`;
  const already = relay.mails.length;
  await visit(page, `${server.url}/`);
  await page.getByRole("button", { name: "Get Updates" }).click();
  const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
  await dialog.getByLabel("Email address").fill(email);
  await dialog.locator("button[type=submit]").click();
  // Without JavaScript this is the page the form's plain post was redirected to; with it, the same flash revalidated.
  const toast = page.getByRole("status").filter({ hasText: SUBSCRIBED_TOAST.message });
  await expect(toast).toBeVisible();
  await expect(toast.locator("p")).toHaveText([
    SUBSCRIBED_TOAST.message,
    SUBSCRIBED_TOAST.description,
    CONFIRM_BY_MAIL_NOTE,
  ]);
  // What the line promises is there: one mail to this address, its link to the confirm page.
  const mails = await relay.waitForMails(already + 1, 10_000);
  expect(mails.filter((mail) => mail.envelopeTo.includes(email))).toHaveLength(1);
  expect(stateOf(email)).toBe("pending");
});

test("on a phone, the confirm page's button is on the first screen", async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 568 });
  await visit(page, `${server.url}/confirm?token=${"a".repeat(43)}`);
  const button = page.getByRole("button", { name: "Confirm" });
  await expect(button).toBeInViewport({ ratio: 1 });
  const box = await button.boundingBox();
  expect(box!.y + box!.height).toBeLessThanOrEqual(568);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
});

/** A sign-up by a visitor without JavaScript, and the token from the confirmation mail it brings. */
async function signUpAndReadToken(email: string) {
  const already = relay.mails.length;
  await fetch(`${server.url}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  const mails = await relay.waitForMails(already + 1, 10_000);
  const mail = mails.slice(already).find((candidate) => candidate.envelopeTo.includes(email))!;
  return /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "")![1]!;
}

for (const scheme of ["light", "dark"] as const satisfies readonly Scheme[]) {
  test.describe(`${scheme} scheme: axe finds nothing`, () => {
    test.use({ colorScheme: scheme });

    test("on the success toast with its line about the mail", async ({ page, browser }, testInfo) => {
      const target = await pageToAnalyse(page, browser, testInfo, scheme);
      try {
        await target.goto(`${server.url}/`);
        if (jsEnabled(testInfo.project.name))
          await expect(target.locator("html")).toHaveAttribute("data-hydrated", "true");
        await target.getByRole("button", { name: "Get Updates" }).click();
        const dialog = target.getByRole("dialog", { name: "Get Updates on My Journey" });
        await dialog
          .getByLabel("Email address")
          .fill(`a11y-${scheme}-${testInfo.project.name}-${Date.now()}@example.com`);
        await dialog.locator("button[type=submit]").click();
        await expect(target.getByRole("status").filter({ hasText: CONFIRM_BY_MAIL_NOTE })).toBeVisible();
        await expectNoViolations(target);
      } finally {
        if (target !== page) await target.context().close();
      }
    });

    test("on the page that says the reader is on the list", async ({ page, browser }, testInfo) => {
      const token = await signUpAndReadToken(
        `a11y-confirmed-${scheme}-${testInfo.project.name}-${Date.now()}@example.com`,
      );
      const target = await pageToAnalyse(page, browser, testInfo, scheme);
      try {
        await target.goto(`${server.url}/confirm?token=${token}`);
        await expectNoViolations(target);
        await target.getByRole("button", { name: "Confirm" }).click();
        await expect(target.getByRole("heading", { level: 1, name: "You're subscribed" })).toBeVisible();
        await expectNoViolations(target);
      } finally {
        if (target !== page) await target.context().close();
      }
    });
  });
}
