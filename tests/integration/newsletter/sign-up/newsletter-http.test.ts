/**
 * The sign-up against the production server over HTTP (`node server/index.mjs` on the build): what a visitor without
 * JavaScript does, many at once. Needs `npm run build` first (`npm test` does it).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newsletterCopy } from "~/content/site";
import { ALREADY_SUBSCRIBED_TOAST, SOMETHING_WENT_WRONG_TOAST, SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { getHome, postForm, storedEmails, subscribe, type PageToast } from "../../../support/newsletter/http";
import {
  inPool,
  serverHarness,
  type ServerProcess,
  startServerExpectingFailure,
} from "../../../support/production-server";
import { subscribers } from "../../../support/subscribers-cli";

const harness = serverHarness("newsletter-http-");
const scratchDir = () => harness.scratchDir();
const start = (env: Record<string, string>) => harness.start(env);

const count = (toasts: (PageToast | null)[], message: string) => toasts.filter((t) => t?.message === message).length;

afterAll(() => harness.cleanup());

describe("the sign-up over HTTP, embedded store", () => {
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = scratchDir();
    server = await start({ DATA_DIR: dataDir });
  });

  it("answers every outcome with a 303 to / and a signed, HttpOnly, Secure, SameSite=Lax toast cookie", async () => {
    const posted = await postForm(server.url, new URLSearchParams({ email: "cookie@example.com", website: "" }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe("/");
    expect(posted.cookie).toMatch(/^__toast=[^;]+\.[^;]+$/);
    const response = await fetch(`${server.url}/?index`, {
      method: "POST",
      body: new URLSearchParams({ email: "cookie2@example.com" }),
      redirect: "manual",
    });
    const [setCookie] = response.headers.getSetCookie();
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\//);
  });

  it("shows the toast once: the page that shows it deletes the cookie, and sets no other", async () => {
    const posted = await postForm(server.url, new URLSearchParams({ email: "once@example.com", website: "" }));
    const page = await getHome(server.url, posted.cookie);
    expect(page.toast).toEqual({
      role: "status",
      type: "success",
      message: SUBSCRIBED_TOAST.message,
      description: SUBSCRIBED_TOAST.description,
    });
    expect(page.setCookies).toHaveLength(1);
    expect(page.setCookies[0]).toMatch(/^__toast=;.*Expires=Thu, 01 Jan 1970/);
  });

  it("sets no cookie on an ordinary page view", async () => {
    const page = await getHome(server.url);
    expect(page.status).toBe(200);
    expect(page.toast).toBeNull();
    expect(page.setCookies).toEqual([]);
  });

  it.each([
    ["garbage", "__toast=garbage%%%;"],
    ["empty", "__toast="],
    ["not base64", "__toast=!!!.???"],
  ])("ignores a %s toast cookie: 200, no toast, no cookie", async (_label, cookie) => {
    const page = await getHome(server.url, cookie);
    expect(page.status).toBe(200);
    expect(page.toast).toBeNull();
    expect(page.setCookies).toEqual([]);
  });

  it("ignores a toast cookie whose content was changed (the signature no longer matches)", async () => {
    const posted = await postForm(server.url, new URLSearchParams({ email: "a@b" }));
    const [value, signature] = posted.cookie!.slice("__toast=".length).split(".");
    const forged = Buffer.from(
      JSON.stringify({ __flash_flash__: { toast: { type: "success", message: "Forged", description: "x" } } }),
    ).toString("base64");
    expect(forged).not.toBe(value);
    const page = await getHome(server.url, `__toast=${encodeURIComponent(forged)}.${signature}`);
    expect(page.status).toBe(200);
    expect(page.toast).toBeNull();
  });

  it("shows 'Invalid email' (an alert) with the first issue's message", async () => {
    expect(await subscribe(server.url, "a@b")).toEqual({
      role: "alert",
      type: "error",
      message: "Invalid email",
      description: "Please enter a valid email address",
    });
    // Well-formed (labels of 50, a short local part) and 262 characters long.
    expect(await subscribe(server.url, `ada@${Array(5).fill("b".repeat(50)).join(".")}.com`)).toMatchObject({
      message: "Invalid email",
      description: "Email is too long",
    });
  });

  it("trims the address before storing it", async () => {
    expect(await subscribe(server.url, "   trimmed@example.com  ")).toMatchObject({ type: "success" });
    expect(storedEmails(dataDir)).toContain("trimmed@example.com");
  });

  it("keeps the dialog's consent with a sign-up while mail is off: the page, the wording, the time", async () => {
    const before = new Date().toISOString();
    await postForm(server.url, new URLSearchParams({ email: "consent@example.com", website: "" }), {
      "Content-Type": "application/x-www-form-urlencoded",
      Referer: `${server.url}/updates`,
    });
    const shown = await subscribers(dataDir, ["show", "consent@example.com"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("from page: /updates\n");
    expect(shown.stdout).toContain(newsletterCopy.title);
    const confirmedAt = /^confirmed: (\S+)$/m.exec(shown.stdout)?.[1] ?? "";
    expect(confirmedAt >= before).toBe(true);
  });

  it.each([
    ["a missing field", "website=", "application/x-www-form-urlencoded"],
    ["an empty field", "email=&website=", "application/x-www-form-urlencoded"],
    ["JSON", '{"email":"json@example.com"}', "application/json"],
    ["plain text", "email=text@example.com", "text/plain"],
    ["multipart without a boundary", "email=x", "multipart/form-data"],
  ])("answers %s with the 'Invalid email' toast, not a 5xx", async (_label, body, type) => {
    const posted = await postForm(server.url, body, { "Content-Type": type });
    expect(posted.status).toBe(303);
    expect((await getHome(server.url, posted.cookie)).toast).toMatchObject({
      message: "Invalid email",
      description: "Please enter a valid email address",
    });
  });

  it("accepts a multipart form too", async () => {
    const form = new FormData();
    form.set("email", "multipart@example.com");
    const posted = await postForm(server.url, form, {});
    expect((await getHome(server.url, posted.cookie)).toast).toMatchObject({ type: "success" });
  });

  it("answers a 1 MB post with 'Email is too long', whether it declares its length or not", async () => {
    const big = `email=${"a".repeat(1_000_000)}%40example.com&website=`;
    const declared = await postForm(server.url, big);
    expect(declared.status).toBe(303);
    expect((await getHome(server.url, declared.cookie)).toast).toMatchObject({
      message: "Invalid email",
      description: "Email is too long",
    });

    const bytes = new TextEncoder().encode(big);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
          controller.enqueue(bytes.slice(offset, offset + 64 * 1024));
        }
        controller.close();
      },
    });
    const streamed = await postForm(server.url, chunked);
    expect(streamed.status).toBe(303);
    expect((await getHome(server.url, streamed.cookie)).toast).toMatchObject({ description: "Email is too long" });
    expect(storedEmails(dataDir).some((email) => email.length > 255)).toBe(false);
  });

  it("tells a bot that fills the honeypot it succeeded, and stores nothing", async () => {
    const toast = await subscribe(server.url, "bot@example.com", { website: "https://spam.example" });
    expect(toast).toMatchObject({ type: "success", message: SUBSCRIBED_TOAST.message });
    expect(storedEmails(dataDir)).not.toContain("bot@example.com");
  });

  it("stores 200 distinct addresses sent 20 at a time: 200 rows, 200 success toasts", async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `reader${i}@example.com`);
    const toasts = await inPool(emails, 20, (email) => subscribe(server.url, email));
    expect(count(toasts, SUBSCRIBED_TOAST.message)).toBe(200);
    const stored = storedEmails(dataDir);
    expect(stored.filter((email) => email.startsWith("reader"))).toHaveLength(200);
    expect(new Set(stored.filter((email) => email.startsWith("reader")))).toEqual(new Set(emails));
  });

  it("stores 50 simultaneous posts of one address once: 1 success and 49 'Already subscribed'", async () => {
    const variants = Array.from({ length: 50 }, (_, i) => (i % 2 ? "Same@Example.com" : "same@example.com"));
    const toasts = await Promise.all(variants.map((email) => subscribe(server.url, email)));
    expect(count(toasts, SUBSCRIBED_TOAST.message)).toBe(1);
    expect(count(toasts, ALREADY_SUBSCRIBED_TOAST.message)).toBe(49);
    expect(toasts.find((toast) => toast?.message === ALREADY_SUBSCRIBED_TOAST.message)).toEqual({
      role: "status",
      type: "info",
      message: ALREADY_SUBSCRIBED_TOAST.message,
      description: ALREADY_SUBSCRIBED_TOAST.description,
    });
    expect(storedEmails(dataDir).filter((email) => email.toLowerCase() === "same@example.com")).toHaveLength(1);
  });

  it("still knows the address after a restart on the same DATA_DIR (and shuts down cleanly)", async () => {
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("Shut down cleanly.");
    const restarted = await start({ DATA_DIR: dataDir });
    expect(await subscribe(restarted.url, "SAME@example.com")).toMatchObject({
      message: ALREADY_SUBSCRIBED_TOAST.message,
    });
    expect(await subscribe(restarted.url, "after-restart@example.com")).toMatchObject({ type: "success" });
    expect(storedEmails(dataDir).filter((email) => email.startsWith("reader"))).toHaveLength(200);
    // The server never logs a full address (the duplicate line above is masked).
    expect(restarted.output()).toContain("S***@example.com");
    expect(restarted.output()).not.toMatch(/SAME@example\.com|after-restart@/);
  });
});

describe("the sign-up over HTTP, rate limited", () => {
  it("refuses the third post in a minute from one client with 'Something went wrong' and stores nothing", async () => {
    const dataDir = scratchDir();
    const server = await start({ DATA_DIR: dataDir, SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "2" });
    expect(await subscribe(server.url, "first@example.com")).toMatchObject({ type: "success" });
    expect(await subscribe(server.url, "second@example.com")).toMatchObject({ type: "success" });
    expect(await subscribe(server.url, "third@example.com")).toEqual({
      role: "alert",
      type: "error",
      message: SOMETHING_WENT_WRONG_TOAST.message,
      description: SOMETHING_WENT_WRONG_TOAST.description,
    });
    expect(storedEmails(dataDir)).toEqual(["first@example.com", "second@example.com"]);
  });

  it("counts X-Forwarded-For clients apart only when TRUST_PROXY is set", async () => {
    const trusting = await start({ DATA_DIR: scratchDir(), SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "1", TRUST_PROXY: "true" });
    const viaProxy = (email: string, client: string) =>
      postForm(trusting.url, new URLSearchParams({ email }), {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Forwarded-For": client,
      }).then((posted) => getHome(trusting.url, posted.cookie));
    expect((await viaProxy("x1@example.com", "203.0.113.1")).toast).toMatchObject({ type: "success" });
    expect((await viaProxy("x2@example.com", "203.0.113.2")).toast).toMatchObject({ type: "success" });
    expect((await viaProxy("x3@example.com", "203.0.113.1")).toast).toMatchObject({ type: "error" });

    const direct = await start({ DATA_DIR: scratchDir(), SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "1" });
    const spoofing = (email: string, client: string) =>
      postForm(direct.url, new URLSearchParams({ email }), {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Forwarded-For": client,
      }).then((posted) => getHome(direct.url, posted.cookie));
    expect((await spoofing("y1@example.com", "203.0.113.1")).toast).toMatchObject({ type: "success" });
    expect((await spoofing("y2@example.com", "203.0.113.2")).toast).toMatchObject({ type: "error" });
  });
});

describe("start-up with an unusable DATA_DIR", () => {
  it("stops with a message naming DATA_DIR instead of failing sign-ups later", async () => {
    const blocker = path.join(scratchDir(), "a-file");
    writeFileSync(blocker, "");
    const { exit, output } = await startServerExpectingFailure({ env: { DATA_DIR: path.join(blocker, "data") } });
    expect(exit.code).toBe(1);
    expect(output()).toMatch(/DATA_DIR ".*a-file\/data" cannot hold the newsletter database/);
    expect(output()).not.toContain("Portfolio listening");
  });
});
