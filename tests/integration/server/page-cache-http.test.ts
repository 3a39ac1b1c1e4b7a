// The whole-page cache of the anonymous home page (server/index.mjs + server/page-cache.mjs), against the production server.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOAST_COOKIE_NAME } from "~/utils/session.server";
import { type ServerProcess, startServer } from "../../support/production-server";

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, { headers, redirect: "manual" });

/** A page rendered for one response: its script nonce, and the one its CSP header allows. They must agree. */
function nonces(body: string, headers: Headers) {
  const inPage = /<script[^>]* nonce="([^"]+)"/.exec(body)?.[1];
  const inHeader = /'nonce-([^']+)'/.exec(headers.get("content-security-policy") ?? "")?.[1];
  expect(inPage, "the page has a nonced script").toBeTruthy();
  expect(inHeader).toBe(inPage);
  return inPage!;
}

/**
 * The cached page, sent to many visitors, has no nonce: its CSP allows our origin's bundles and exactly its own inline
 * scripts, by hash. Returns the script-src directive.
 */
function expectSharedPagePolicy(body: string, headers: Headers): string {
  expect(body).not.toMatch(/ nonce="/);
  const scriptSrc = /script-src ([^;]+)/.exec(headers.get("content-security-policy") ?? "")?.[1];
  // Not the JSON-LD data block: the browser never runs it, so the policy does not list it.
  const inline = [
    ...body.matchAll(/<script(?![^>]*\s(?:src=|type="application\/ld\+json"))[^>]*>([\s\S]*?)<\/script>/g),
  ].map((match) => match[1]!);
  expect(body).toContain('<script type="application/ld+json">');
  expect(inline.length, "Remix's inline scripts").toBeGreaterThanOrEqual(2);
  const hashes = inline.map((script) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`);
  expect(scriptSrc).toBe(["'self'", ...new Set(hashes)].join(" "));
  return scriptSrc!;
}

const withoutNonce = (body: string) => body.replace(/ nonce="[^"]+"/g, "");

describe("home page cache", () => {
  it("answers two anonymous visitors with the same page, without a nonce, and complete headers", async () => {
    const first = await get("/");
    const second = await get("/");
    const [a, b] = [await first.text(), await second.text()];
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(b).toBe(a);
    expect(expectSharedPagePolicy(b, second.headers)).toBe(expectSharedPagePolicy(a, first.headers));

    const headers = second.headers;
    expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(headers.get("cache-control")).toBe("no-cache");
    expect(headers.get("vary")).toBe("Accept-Encoding");
    expect(headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(headers.get("x-content-type-options")).toBe("nosniff");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(headers.get("permissions-policy")).toContain("camera=()");
    expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // Plain HTTP here: HSTS only goes with HTTPS, as for a rendered page.
    expect(headers.get("strict-transport-security")).toBeNull();
    expect(headers.get("set-cookie")).toBeNull();
    expect(a).toContain("<h1");
  });

  it("sends the same page gzip- or brotli-compressed to clients that accept it, with its own ETag", async () => {
    const identity = await get("/", { "accept-encoding": "identity" });
    const plain = Buffer.from(await identity.arrayBuffer());
    // fetch would decode the body itself; node:http-level bytes are what we check, so ask for them raw.
    const gzip = await rawGet("/", { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.headers.vary).toBe("Accept-Encoding");
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    expect(Number(gzip.headers["content-length"])).toBe(gzip.body.length);
    expect(gzip.headers.etag).not.toBe(identity.headers.get("etag"));

    const br = await rawGet("/", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.body.length).toBeLessThan(gzip.body.length);
  });

  it("answers a matching If-None-Match with 304 and no body", async () => {
    const first = await get("/", { "accept-encoding": "gzip" });
    const etag = first.headers.get("etag")!;
    const again = await get("/", { "accept-encoding": "gzip", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("content-security-policy")).toBe(first.headers.get("content-security-policy"));
    // Another representation's validator does not match.
    const identity = await get("/", { "accept-encoding": "identity", "if-none-match": etag });
    expect(identity.status).toBe(200);
    await identity.arrayBuffer();
  });

  it("answers HEAD / with the page's headers and no body", async () => {
    const page = await get("/", { "accept-encoding": "identity" });
    const length = (await page.arrayBuffer()).byteLength;
    const head = await fetch(server.url + "/", { method: "HEAD", headers: { "accept-encoding": "identity" } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(head.headers.get("content-length")).toBe(String(length));
    expect(head.headers.get("etag")).toBe(page.headers.get("etag"));
    expect(await head.text()).toBe("");
  });

  it("renders a request with a query string afresh (new nonce), with the same content", async () => {
    const cachedResponse = await get("/");
    const cached = await cachedResponse.text();
    const first = await get("/?x=1");
    const second = await get("/?x=1");
    const [a, b] = [await first.text(), await second.text()];
    expect(first.status).toBe(200);
    const nonce = nonces(a, first.headers);
    expect(nonces(b, second.headers)).not.toBe(nonce);
    expectSharedPagePolicy(cached, cachedResponse.headers);
    expect(withoutNonce(a)).toBe(cached);
  });

  it("answers a visitor from a shared link (a query string that only tracks) with the cached page", async () => {
    const bare = await get("/", { "accept-encoding": "gzip" });
    const page = await bare.text();
    expectSharedPagePolicy(page, bare.headers);
    for (const path of ["/?utm_source=x&fbclid=y", "/?utm_source=twitter&utm_medium=social", "/?trk=public_post"]) {
      const shared = await get(path, { "accept-encoding": "gzip" });
      const body = await shared.text();
      expect(shared.status).toBe(200);
      // The same representation: same validator, same bytes, no nonce of its own.
      expect(shared.headers.get("etag")).toBe(bare.headers.get("etag"));
      expect(body).toBe(page);
      expectSharedPagePolicy(body, shared.headers);
    }
    // Its canonical address stays the bare `/`.
    expect(page).toMatch(/<meta property="og:url" content="https:\/\/[^"?]+"\/>/);

    // One parameter that is not in the list, and it is rendered for that request, as before.
    const other = await get("/?other=1", { "accept-encoding": "gzip" });
    const rendered = await other.text();
    expect(other.status).toBe(200);
    nonces(rendered, other.headers);
    expect(other.headers.get("etag")).toBeNull();
    expect(withoutNonce(rendered)).toBe(page);
    const mixed = await get("/?utm_source=x&other=1");
    nonces(await mixed.text(), mixed.headers);
  });

  it("never answers a request carrying the toast cookie from the cache", async () => {
    const cachedResponse = await get("/");
    const cached = await cachedResponse.text();
    const cachedPolicy = expectSharedPagePolicy(cached, cachedResponse.headers);
    // Another site's cookie does not matter: still the cached page.
    const foreign = await get("/", { cookie: "theme=dark; _ga=GA1.1" });
    expect(expectSharedPagePolicy(await foreign.text(), foreign.headers)).toBe(cachedPolicy);

    for (const cookie of [`${TOAST_COOKIE_NAME}=garbage`, `theme=dark; ${TOAST_COOKIE_NAME}=x.y`]) {
      const fresh = await get("/", { cookie });
      const body = await fresh.text();
      expect(fresh.status).toBe(200);
      nonces(body, fresh.headers);
      // Same page for someone whose cookie carries no toast, rendered for them alone.
      expect(withoutNonce(body)).toBe(cached);
    }
  });

  it("shows a visitor their toast and never shows it to anyone else", async () => {
    const before = await get("/");
    const cachedPolicy = expectSharedPagePolicy(await before.text(), before.headers);

    // The real flow: subscribe, get redirected with the toast cookie, see the toast on the next page.
    const posted = await fetch(server.url + "/?index", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      body: new URLSearchParams({ email: "cache-test@example.com" }),
    });
    await posted.arrayBuffer();
    expect(posted.status).toBeGreaterThanOrEqual(300);
    expect(posted.status).toBeLessThan(400);
    const setCookie = posted.headers.getSetCookie().find((cookie) => cookie.startsWith(`${TOAST_COOKIE_NAME}=`));
    expect(setCookie, `the action flashes the toast in the ${TOAST_COOKIE_NAME} cookie`).toBeTruthy();
    const cookie = setCookie!.split(";")[0]!;

    const mine = await get("/", { cookie });
    const myPage = await mine.text();
    expect(myPage).toContain("Successfully subscribed!");
    nonces(myPage, mine.headers);

    for (const path of ["/", "/"]) {
      const other = await get(path);
      const page = await other.text();
      expect(page).not.toContain("Successfully subscribed!");
      expect(page).not.toContain("data-toast=");
      expect(expectSharedPagePolicy(page, other.headers)).toBe(cachedPolicy);
    }
  });
});

/** A GET whose body is returned exactly as sent (fetch would undo the content encoding). */
async function rawGet(path: string, headers: Record<string, string>) {
  const http = await import("node:http");
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const request = http.get(server.url + path, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on("error", reject);
      });
      request.on("error", reject);
    },
  );
}
