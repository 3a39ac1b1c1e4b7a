/**
 * Every page the production server sends is valid HTML for the Nu Html Checker, with JavaScript off (the bytes the
 * server sends) and on (the document as Chromium holds it once React has hydrated it): the home page with and without
 * a sign-up's answer, the dialog open, the updates, an update, the confirm and unsubscribe pages with good, unknown and
 * broken tokens and their answers, the 404 and 405 pages, and the server's own status pages. Also: each page links its
 * canonical address and the feed, and the home page's JSON-LD parses as the profile it describes.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerServerError } from "~/server-build/server-error.server";
import { postForm } from "../../support/newsletter/http";
import { serverHarness, type ServerProcess } from "../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";
import { htmlErrors } from "../../support/html-checker";
import { confirmTokenIn } from "../../support/confirm-link";

const harness = serverHarness("html-validity-");
const UNKNOWN_TOKEN = "3f1e2d4c-5b6a-4789-8abc-def012345678";
const ORIGIN = "https://example.com";
let relay: TestSmtpServer;
let server: ServerProcess;
let browser: Browser;
/** One blank page whose DOMParser reads the documents' heads. */
let parser: import("playwright-core").Page | undefined;
const pages: Record<string, string> = {};

const text = async (path: string, init?: RequestInit) => (await fetch(server.url + path, init)).text();
const form = (body: Record<string, string>): RequestInit => ({
  method: "POST",
  body: new URLSearchParams(body),
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
});

/**
 * What a document's head says about the page, read by Chromium's HTML parser (DOMParser, no script runs): its
 * canonical addresses, its Atom feed links, its robots directives and its JSON-LD blocks.
 */
async function parsed(html: string) {
  parser ??= await browser.newPage();
  return parser.evaluate((source) => {
    const document = new DOMParser().parseFromString(source, "text/html");
    const all = (selector: string) => [...document.querySelectorAll(selector)];
    return {
      canonical: all('link[rel="canonical"]').map((link) => link.getAttribute("href")),
      feeds: all('link[rel="alternate"][type="application/atom+xml"]').map((link) => ({
        href: link.getAttribute("href"),
        titled: (link.getAttribute("title") ?? "").trim() !== "",
      })),
      robots: all('meta[name="robots"]').map((meta) => meta.getAttribute("content")),
      jsonLd: all('script[type="application/ld+json"]').map((script) => script.textContent ?? ""),
    };
  }, html);
}

/** The page as Chromium holds it after hydration (JavaScript on), with `act` done first if given. */
async function hydrated(path: string, act?: (page: import("playwright-core").Page) => Promise<void>) {
  const page = await browser.newPage();
  try {
    await page.goto(server.url + path);
    await page.locator("html[data-hydrated=true]").waitFor({ state: "attached", timeout: 20_000 });
    await act?.(page);
    return await page.evaluate(() => `<!DOCTYPE html>${document.documentElement.outerHTML}`);
  } finally {
    await page.close();
  }
}

/** The exact 500 page the server sends when Remix cannot answer (server/index.mjs calls this). */
async function serverErrorPage(): Promise<string> {
  const faulty = createServer((req, res) => answerServerError(req, res, new Error("a fault for the test"), false));
  await new Promise<void>((resolve) => faulty.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(faulty.address() as AddressInfo).port}/`);
    expect(response.status).toBe(500);
    return await response.text();
  } finally {
    faulty.close();
  }
}

beforeAll(async () => {
  relay = await startSmtpServer();
  server = await harness.start({
    DATA_DIR: harness.scratchDir(),
    SMTP_URL: relay.url(),
    MAIL_FROM: "Alex Placeholder <updates@example.com>",
  });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });

  const list = await text("/updates");
  const update = /href="(\/updates\/\d{4}-\d{2}-\d{2}-[a-z0-9-]+)"/.exec(list)?.[1];
  expect(update, "the shipped updates have at least one published update").toBeDefined();

  // JavaScript off: what the server sends.
  pages["/"] = await text("/");
  pages["/updates"] = list;
  pages[update!] = await text(update!);
  pages["/nope (404)"] = await text("/nope");
  pages["POST /updates (405)"] = await text("/updates", { ...form({}), headers: { Origin: ORIGIN } });
  const refused = await fetch(server.url + "/?index", {
    ...form({ email: "a@example.com" }),
    headers: { Origin: "https://elsewhere.example" },
  });
  expect(refused.status).toBe(403);
  pages["cross-site post (403)"] = await refused.text();
  pages["server error (500)"] = await serverErrorPage();

  // A sign-up's answers, as the page after the redirect shows them: the field's error, then the toast.
  for (const [name, email] of [
    ["/ with the field's error", "not an address"],
    ["/ with the sign-up's toast", "reader@example.com"],
  ] as const) {
    const posted = await postForm(server.url, new URLSearchParams({ email, website: "" }));
    expect(posted.cookie, name).not.toBeNull();
    pages[name] = await text("/", { headers: { Cookie: posted.cookie! } });
  }
  const [mail] = await relay.waitForMails(1, 10_000);
  const token = confirmTokenIn(mail!.parsed.text ?? "");
  expect(token).toBeDefined();

  for (const query of ["", "?token=garbage", `?token=${token}`])
    pages[`/confirm${query}`] = await text(`/confirm${query}`);
  pages["POST /confirm (confirmed)"] = await text(`/confirm?token=${token}`, form({ token: token! }));
  pages["POST /confirm (used token)"] = await text(`/confirm?token=${token}`, form({ token: token! }));
  for (const query of ["", "?token=garbage", `?token=${UNKNOWN_TOKEN}`]) {
    pages[`/unsubscribe${query}`] = await text(`/unsubscribe${query}`);
  }
  // A known and an unknown token get the very same answer (tests/integration/newsletter/unsubscribe/unsubscribe-http.test.ts).
  pages["POST /unsubscribe"] = await text(`/unsubscribe?token=${UNKNOWN_TOKEN}`, form({ token: UNKNOWN_TOKEN }));

  // JavaScript on: the documents after hydration.
  for (const path of [
    "/",
    "/updates",
    update!,
    "/confirm?token=garbage",
    `/unsubscribe?token=${UNKNOWN_TOKEN}`,
    "/nope",
  ]) {
    pages[`${path}, hydrated`] = await hydrated(path);
  }
  pages["/ with the dialog open, hydrated"] = await hydrated("/", async (page) => {
    await page.getByRole("button", { name: "Get Updates" }).click();
    await page.locator("dialog[open] input[type=email]").waitFor();
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await harness.cleanup();
  await relay?.close();
});

describe("the HTML of every page", () => {
  it("has no error for the Nu Html Checker, JavaScript off and on", async () => {
    expect(Object.keys(pages).length).toBeGreaterThanOrEqual(25);
    // The probe, in the same run (the checker's start takes seconds): the script after `</html>` that Remix's stream
    // scripts used to be is found.
    const BROKEN = "(the home page with a script after </html>)";
    const errors = await htmlErrors({
      ...pages,
      [BROKEN]: pages["/"]!.replace("</html>", "</html><script>1</script>"),
    });
    expect(errors[BROKEN]!.map((message) => message.message).join("\n")).toMatch(/Stray start tag “script”/);
    const found = Object.entries(errors)
      .filter(([name, messages]) => name !== BROKEN && messages.length > 0)
      .map(([name, messages]) => `${name}:\n${messages.map((m) => `  line ${m.lastLine}: ${m.message}`).join("\n")}`);
    expect(found).toEqual([]);
  }, 120_000);

  it("links every page's canonical address (its path, never its query) and the Atom feed", async () => {
    for (const [name, html] of Object.entries(pages)) {
      const found = await parsed(html);
      // The server's own pages (sent before or without Remix) are noindex, and link nothing. A post where no action
      // is (405) renders in the updates route's error boundary, under the root's data: it links its page as any page.
      if (/\((403|500)\)$/.test(name)) {
        expect(found.robots, name).toEqual(["noindex"]);
        continue;
      }
      expect(found.canonical, name).toHaveLength(1);
      const path = name.startsWith("POST ") ? name.split(" ")[1]! : name.split(/[ ,?]/)[0]!;
      expect(found.canonical[0], name).toBe(`${ORIGIN}${path}`);
      expect(found.feeds, name).toEqual([{ href: "/updates/feed.xml", titled: true }]);
    }
  });

  it("the home page's JSON-LD is one ProfilePage about the owner", async () => {
    for (const name of ["/", "/, hydrated"]) {
      const { jsonLd } = await parsed(pages[name]!);
      expect(jsonLd, name).toHaveLength(1);
      const data = JSON.parse(jsonLd[0]!) as Record<string, unknown> & { mainEntity: Record<string, unknown> };
      expect(data["@context"]).toBe("https://schema.org");
      expect(data["@type"]).toBe("ProfilePage");
      expect(data.mainEntity["@type"]).toBe("Person");
      expect(data.mainEntity.url).toBe(`${ORIGIN}/`);
    }
  });
});
