// The owner's deploy, run: the production server behind Debian's nginx and Caddy with the files in deploy/, over
// HTTPS, with JavaScript on and off (the two projects). Each group starts its own app servers and proxies in
// beforeAll (the proxies' files in a temporary directory) and stops them in afterAll.
import { rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page, Response } from "@playwright/test";
import { SOMETHING_WENT_WRONG_TOAST, SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { type ServerProcess, startServer, tempDir } from "../support/production-server";
import {
  CADDY,
  NGINX,
  OPENSSL,
  type RunningProxy,
  SITE_NAME,
  missingBinary,
  startCaddy,
  startNginx,
} from "../support/reverse-proxy";
import { expect, jsEnabled, test, visit } from "./fixtures";

// The proxies present certificates no browser trusts (openssl's self-signed one, Caddy's internal CA).
test.use({ ignoreHTTPSErrors: true });

const HSTS = "max-age=63072000";
// What the app says once when a post from the site's own page arrives with another Host (the proxy drops it).
const HOST_HINT = "does not pass the visitor's Host";

interface Front {
  title: string;
  /** What it needs installed: the proxy (and, for nginx, openssl to make its certificate). */
  binaries: string[];
  start(dir: string, appPort: number): Promise<RunningProxy>;
  /** The shipped file, as given: everything is tested, and the app has nothing to complain about. */
  shipped: boolean;
}

const fronts: Front[] = [
  {
    title: "behind nginx (deploy/nginx.conf)",
    binaries: [NGINX, OPENSSL],
    start: (dir, appPort) => startNginx(dir, appPort, true),
    shipped: true,
  },
  {
    title: "behind Caddy (deploy/Caddyfile)",
    binaries: [CADDY],
    start: startCaddy,
    shipped: true,
  },
  {
    // The README before deploy/ existed: nginx then sends Host 127.0.0.1:<port> while the browser's Origin is the
    // site, and Remix's own Origin-vs-Host check answered every sign-up without JavaScript with a 500.
    title: "behind nginx that does not pass Host",
    binaries: [NGINX, OPENSSL],
    start: (dir, appPort) => startNginx(dir, appPort, false),
    shipped: false,
  },
];

let sequence = 0;
function freshEmail(projectName: string) {
  sequence += 1;
  return `proxied-${projectName}-${Date.now()}-${sequence}@example.com`;
}

function subscriberToken(dataDir: string, email: string): string | undefined {
  const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME), { readOnly: true });
  try {
    const row = db.prepare("select unsubscribe_token as token from newsletter_subscribers where email = ?").get(email);
    return (row as { token?: string } | undefined)?.token;
  } finally {
    db.close();
  }
}

/** Signs up through the dialog; resolves with the response to the post (the 303 itself without JavaScript). */
async function signUp(page: Page, email: string): Promise<Response> {
  const dialog = page.getByRole("dialog", { name: "Get Updates on My Journey" });
  await page.getByRole("button", { name: "Get Updates" }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Email address").fill(email);
  const posted = page.waitForResponse((response) => response.request().method() === "POST");
  await dialog.locator("button[type=submit]").click();
  return posted;
}

const toast = (page: Page, role: "status" | "alert", title: string) => page.getByRole(role).filter({ hasText: title });

/** A sign-up posted from another loopback address than the browser's: another visitor, as far as the proxy knows. */
function signUpFrom(localAddress: string, proxy: RunningProxy, email: string): Promise<number> {
  const body = new URLSearchParams({ email, website: "" }).toString();
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: "127.0.0.1",
        port: proxy.httpsPort,
        localAddress,
        servername: SITE_NAME,
        method: "POST",
        path: "/?index",
        rejectUnauthorized: false,
        timeout: 5_000,
        headers: {
          Host: `${SITE_NAME}:${proxy.httpsPort}`,
          "Content-Type": "application/x-www-form-urlencoded",
          "Content-Length": Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.on("error", reject);
    request.end(body);
  });
}

/** A GET to the proxy's plain-HTTP port with whatever Host header the client likes (a browser never forges one). */
function plainGet(proxy: RunningProxy, target: string, host: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: new URL(proxy.httpUrl).port, path: target, timeout: 5_000, headers: { Host: host } },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, location: response.headers.location });
      },
    );
    request.on("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.on("error", reject);
    request.end();
  });
}

for (const front of fronts) {
  test.describe(front.title, () => {
    const missing = front.binaries.map(missingBinary).find(Boolean);
    test.skip(Boolean(missing), missing ?? "");

    let work: string;
    let app: ServerProcess;
    let proxy: RunningProxy;
    // For the shipped files, a second app, limited to two sign-ups per visitor a minute, behind its own proxy.
    let limitedApp: ServerProcess;
    let limitedProxy: RunningProxy;
    const dataDir = () => path.join(work, "data");

    test.beforeAll(async () => {
      work = tempDir("portfolio-e2e-proxy-");
      app = await startServer({ env: { TRUST_PROXY: "true", DATA_DIR: dataDir() } });
      proxy = await front.start(path.join(work, "proxy"), Number(new URL(app.url).port));
      if (front.shipped) {
        limitedApp = await startServer({ env: { TRUST_PROXY: "true", SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "2" } });
        limitedProxy = await front.start(path.join(work, "limited-proxy"), Number(new URL(limitedApp.url).port));
      }
    });

    // A failure comes with what the servers printed: the app's log lines and the proxy's errors.
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a hook wants from this pattern
    test.afterEach(async ({}, testInfo) => {
      if (testInfo.status === testInfo.expectedStatus) return;
      for (const [name, output] of [
        ["app", app?.output()],
        ["proxy", proxy?.output()],
        ["limited app", limitedApp?.output()],
        ["limited proxy", limitedProxy?.output()],
      ] as const) {
        if (output) await testInfo.attach(`${name} output`, { body: output, contentType: "text/plain" });
      }
    });

    test.afterAll(async () => {
      await Promise.all([proxy?.stop(), limitedProxy?.stop()]);
      await Promise.all([app?.stop(), limitedApp?.stop()]);
      if (work) rmSync(work, { recursive: true, force: true });
    });

    test("sign-up over HTTPS: the toast, the subscriber stored, HSTS and a Secure cookie", async ({
      page,
    }, testInfo) => {
      const home = await page.goto(`${proxy.url}/`);
      expect(home?.status()).toBe(200);
      expect(home?.headers()["strict-transport-security"]).toBe(HSTS);
      if (jsEnabled(testInfo.project.name)) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");

      const email = freshEmail(testInfo.project.name);
      const posted = await signUp(page, email);
      // Without JavaScript the form post itself; with it, Remix's data request (its redirect is a header).
      if (jsEnabled(testInfo.project.name)) expect(posted.status()).toBeLessThan(300);
      else expect(posted.status()).toBe(303);
      const cookies = (await posted.headerValue("set-cookie")) ?? "";
      expect(cookies).toMatch(/__toast=/);
      for (const cookie of cookies.split("\n")) expect(cookie).toMatch(/; Secure(;|$)/);

      const success = toast(page, "status", SUBSCRIBED_TOAST.message);
      await expect(success).toBeVisible();
      await expect(success).toContainText(SUBSCRIBED_TOAST.description);
      expect(subscriberToken(dataDir(), email)).toBeTruthy();

      if (front.shipped) {
        expect(app.output()).not.toContain("Proxy:");
      } else {
        // The server says once what the proxy set-up lacks, with the fix.
        expect(app.output().split(HOST_HINT)).toHaveLength(2);
        expect(app.output()).toContain("proxy_set_header Host $host;");
      }
    });

    test("unsubscribe through the proxy", async ({ page, request }, testInfo) => {
      const email = freshEmail(testInfo.project.name);
      // Signed up by a post from no browser (no Origin, as in unsubscribe.spec.ts); then the visitor leaves.
      const posted = await request.post(`${proxy.url}/?index`, { form: { email, website: "" }, maxRedirects: 0 });
      expect(posted.status()).toBe(303);
      const token = subscriberToken(dataDir(), email);
      expect(token).toBeTruthy();

      await visit(page, `${proxy.url}/unsubscribe?token=${token}`);
      await page.getByRole("button", { name: /^Unsubscrib/ }).click();
      await expect(page.getByRole("heading", { level: 1, name: "You're unsubscribed" })).toBeVisible();
      expect(subscriberToken(dataDir(), email)).toBeUndefined();
    });

    test("/healthz over HTTPS; plain HTTP redirects to HTTPS", async ({ request }) => {
      test.skip(!front.shipped, "the shipped files only");
      const health = await request.get(`${proxy.url}/healthz`);
      expect(health.status()).toBe(200);
      expect(await health.text()).toBe("ok");
      expect(health.headers()["strict-transport-security"]).toBe(HSTS);
      expect(health.headers()["cache-control"]).toBe("no-store");

      const plain = await request.get(`${proxy.httpUrl}/unsubscribe?token=oops`, { maxRedirects: 0 });
      expect([301, 308]).toContain(plain.status());
      expect(plain.headers()["location"]).toBe(`${proxy.url}/unsubscribe?token=oops`);
    });

    test("plain HTTP redirects to the site's own name, whatever Host the client sends", async () => {
      // The redirect is the nginx site's own line; Caddy's is built in (it follows the Host it is given).
      test.skip(!front.shipped || front.binaries.includes(CADDY), "the shipped nginx site only");
      for (const host of ["evil.example", `evil.example:${proxy.httpsPort}`, "localhost.evil.example"]) {
        const { status, location } = await plainGet(proxy, "/unsubscribe?token=oops", host);
        expect(status, `Host: ${host}`).toBe(301);
        expect(location, `Host: ${host}`).toBe(`${proxy.url}/unsubscribe?token=oops`);
      }
    });

    test("a visitor's forged X-Forwarded-Host never reaches the app: the proxy sets its own", async ({ request }) => {
      test.skip(!front.shipped, "the shipped files only");
      for (const forged of ["x:65536", "x:-1", "example.com,:65536"]) {
        const before = app.output().length;
        for (const path of ["/healthz", "/?x=1", "/_root.data"]) {
          const response = await request.get(`${proxy.url}${path}`, { headers: { "X-Forwarded-Host": forged } });
          expect(response.status(), `${forged} ${path}`).toBe(200);
          expect(response.headers()["x-content-type-options"]).toBe("nosniff");
        }
        expect(app.output().slice(before)).not.toMatch(/^\s+at /m);
        expect(app.output().slice(before)).not.toContain("X-Forwarded-Host");
      }
    });

    test("the rate limit counts the visitor's address: a forged X-Forwarded-For does not reset it", async ({
      page,
    }, testInfo) => {
      test.skip(!front.shipped, "the shipped files only");
      // What a client claims is kept by nginx as an earlier entry and dropped by Caddy; the app reads the last one.
      await page.setExtraHTTPHeaders({ "X-Forwarded-For": "203.0.113.7" });
      await visit(page, `${limitedProxy.url}/`);
      for (let time = 0; time < 2; time++) {
        await signUp(page, freshEmail(testInfo.project.name));
        await expect(toast(page, "status", SUBSCRIBED_TOAST.message)).toBeVisible();
        await visit(page, `${limitedProxy.url}/`);
      }
      // A new claimed address is still the same visitor.
      await page.setExtraHTTPHeaders({ "X-Forwarded-For": "203.0.113.8" });
      await visit(page, `${limitedProxy.url}/`);
      await signUp(page, freshEmail(testInfo.project.name));
      const refused = toast(page, "alert", SOMETHING_WENT_WRONG_TOAST.message);
      await expect(refused).toBeVisible();
      await expect(refused).toContainText(SOMETHING_WENT_WRONG_TOAST.description);

      // A visitor from another address is not held back by this one's limit.
      expect(await signUpFrom("127.0.0.2", limitedProxy, freshEmail(testInfo.project.name))).toBe(303);
    });
  });
}
