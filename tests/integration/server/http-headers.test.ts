// The production server's headers, over real HTTP: security headers, caching, the health and robots routes.
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, type ServerProcess, startServer } from "../../support/production-server";

const HSTS = "max-age=63072000";

let proxied: ServerProcess; // TRUST_PROXY=true: behind a TLS-terminating proxy, as in docs/deployment.md
let direct: ServerProcess; // TRUST_PROXY=false, ALLOW_INDEXING=false: a staging copy reached directly

beforeAll(async () => {
  [proxied, direct] = await Promise.all([
    startServer({ env: { TRUST_PROXY: "true" } }),
    startServer({ env: { TRUST_PROXY: "false", ALLOW_INDEXING: "false" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([proxied?.stop(), direct?.stop()]);
});

const get = (server: ServerProcess, pathname: string, init: RequestInit = {}) =>
  fetch(server.url + pathname, { redirect: "manual", ...init });

function cspDirectives(response: Response): Map<string, string> {
  const header = response.headers.get("content-security-policy");
  expect(header, "Content-Security-Policy").toBeTruthy();
  return new Map(
    header!.split(";").map((directive) => {
      const [name = "", ...values] = directive.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

function expectDocumentHeaders(response: Response) {
  const csp = cspDirectives(response);
  expect(csp.get("default-src")).toBe("'none'");
  // A page rendered for this response has its own nonce; the cached home page lists its inline scripts' hashes
  // (docs/decisions/006-page-cache-and-csp.md).
  expect(csp.get("script-src")).toMatch(
    /^(?:'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'|'self'(?: 'sha256-[A-Za-z0-9+/]{43}=')+)$/,
  );
  expect(csp.get("object-src")).toBe("'none'");
  expect(csp.get("base-uri")).toBe("'none'");
  expect(csp.get("frame-ancestors")).toBe("'none'");
  expect(csp.get("form-action")).toBe("'self'");
  expect(csp.get("img-src")).toBe("'self' data:");
  // The one stylesheet is linked from the site itself: no inline style is allowed.
  expect(csp.get("style-src")).toBe("'self'");
  expect(csp.get("connect-src")).toBe("'self'");
  // Enforced, not report-only; and no unsafe source anywhere.
  expect(response.headers.get("content-security-policy-report-only")).toBeNull();
  expect(response.headers.get("content-security-policy")).not.toContain("unsafe");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(response.headers.get("permissions-policy")).toContain("camera=()");
  expect(response.headers.get("permissions-policy")).toContain("geolocation=()");
  expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  expect(response.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("x-powered-by")).toBeNull();
}

function expectResourceHeaders(response: Response) {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(response.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(response.headers.get("x-powered-by")).toBeNull();
}

const nonceOf = (response: Response) =>
  /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1];

/** The browser entry of the build, e.g. /build/entry.client-ABC123.js. */
const entryClient = () => {
  const file = readdirSync(path.join(ROOT, "public", "build")).find((name) => /^entry\.client-\w+\.js$/.test(name));
  if (!file) throw new Error("no entry.client in public/build: run `npm run build` first");
  return `/build/${file}`;
};

describe("the home page", () => {
  it("answers 200 HTML with every security header, not cached by shared caches", async () => {
    const response = await get(proxied, "/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expectDocumentHeaders(response);
    expect(response.headers.get("strict-transport-security")).toBeNull();
    expect(response.headers.get("x-robots-tag")).toBeNull();
  });

  it("gives each rendered response its own nonce, the one its script tags carry", async () => {
    // A query string bypasses the home page cache, whose copy every anonymous visitor shares (page-cache-http.test.ts).
    const [first, second] = await Promise.all([get(proxied, "/?a=1"), get(proxied, "/?a=2")]);
    const nonces = [nonceOf(first), nonceOf(second)];
    expect(nonces[0]).toBeTruthy();
    expect(nonces[1]).toBeTruthy();
    expect(nonces[0]).not.toBe(nonces[1]);
    for (const [index, response] of [first, second].entries()) {
      const html = await response.text();
      // The JSON-LD data block is never run: it needs no nonce.
      const scripts = (html.match(/<script\b[^>]*>/g) ?? []).filter((tag) => !tag.includes("application/ld+json"));
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonces[index]}"`);
      // Remix's scripts: the browser entry is imported by the nonced inline module, and trusted through it.
      expect(html).toContain(`"${entryClient()}"`);
    }
  });

  it("sends HSTS when the proxy says the visitor came over HTTPS", async () => {
    const response = await get(proxied, "/", { headers: { "X-Forwarded-Proto": "https" } });
    expect(response.headers.get("strict-transport-security")).toBe(HSTS);
    expectDocumentHeaders(response);
  });

  it("ignores X-Forwarded-Proto without TRUST_PROXY (anyone could send it)", async () => {
    const response = await get(direct, "/", { headers: { "X-Forwarded-Proto": "https" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("is compressed for clients that accept gzip", async () => {
    const response = await get(proxied, "/", { headers: { "Accept-Encoding": "gzip" } });
    expect(response.headers.get("content-encoding")).toBe("gzip");
  });
});

describe("other Remix responses", () => {
  it("the 404 page carries the document headers", async () => {
    const response = await get(proxied, "/no-such-page");
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expectDocumentHeaders(response);
  });

  it("data requests carry them too", async () => {
    const response = await get(proxied, "/_root.data");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/x-script/);
    expectDocumentHeaders(response);
  });
});

describe("methods the site does not use", () => {
  it("OPTIONS gets 204 with Allow, no CORS grant, and no error in the log", async () => {
    const response = await get(proxied, "/", {
      method: "OPTIONS",
      headers: { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "GET" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expectResourceHeaders(response);
    expect(proxied.output()).not.toMatch(/error/i);
  });

  it.each(["PUT", "DELETE", "PATCH"])("%s gets 405 with Allow", async (method) => {
    const response = await get(proxied, "/", { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
  });
});

describe("GET /healthz", () => {
  it("answers 200 ok as plain text, never cached, with its own headers", async () => {
    const response = await get(proxied, "/healthz");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expectResourceHeaders(response);
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("answers HEAD too (some probes use it)", async () => {
    const response = await get(proxied, "/healthz", { method: "HEAD" });
    expect(response.status).toBe(200);
  });

  it("is not logged as a missing page", async () => {
    await get(proxied, "/healthz");
    expect(proxied.output()).not.toContain('"/healthz"');
  });

  it("sends HSTS behind an HTTPS proxy", async () => {
    const response = await get(proxied, "/healthz", { headers: { "X-Forwarded-Proto": "https" } });
    expect(response.headers.get("strict-transport-security")).toBe(HSTS);
  });
});

describe("GET /robots.txt", () => {
  it("allows crawling by default", async () => {
    const response = await get(proxied, "/robots.txt");
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^User-agent: \*\nAllow: \/\n\nSitemap: https:\/\/\S+\/sitemap\.xml\n$/);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expectResourceHeaders(response);
  });

  it("disallows everything with ALLOW_INDEXING=false", async () => {
    const response = await get(direct, "/robots.txt");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("User-agent: *\nDisallow: /\n");
  });
});

describe("ALLOW_INDEXING=false", () => {
  it.each(["/", "/healthz", "/robots.txt", "/favicon.svg", "/no-such-page"])(
    "%s carries X-Robots-Tag: noindex",
    async (pathname) => {
      const response = await get(direct, pathname);
      expect(response.headers.get("x-robots-tag")).toBe("noindex");
    },
  );
});

describe("static files", () => {
  it("hashed build assets are immutable for a year and carry nosniff", async () => {
    const response = await get(proxied, entryClient());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expectResourceHeaders(response);
  });

  it("the built stylesheet is served from /build/ the same way", async () => {
    // The page inlines it (decision 006); the file stays the fallback when the inline copy cannot be read.
    const css = readdirSync(path.join(ROOT, "public", "build", "_assets")).find((name) => name.endsWith(".css"));
    const href = css ? `/build/_assets/${css}` : undefined;
    expect(href).toMatch(/^\/build\//);
    const response = await get(proxied, href!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/css/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expectResourceHeaders(response);
  });

  it("other public files are cached for an hour", async () => {
    const response = await get(proxied, "/favicon.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expectResourceHeaders(response);
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("send HSTS behind an HTTPS proxy", async () => {
    const response = await get(proxied, "/favicon.svg", { headers: { "X-Forwarded-Proto": "https" } });
    expect(response.headers.get("strict-transport-security")).toBe(HSTS);
  });

  it("a missing build asset is the 404 page, not a directory listing", async () => {
    const response = await get(proxied, "/build/");
    expect(response.status).toBe(404);
    expectDocumentHeaders(response);
  });
});
