// The server's last resort (server/last-resort.mjs) around a real node:http server: a fault at once in the request
// listener, and one in the page cache's send after its render (out of the listener's try), both answer the site's own
// 500 page. Nothing in the production server throws there on purpose, so the faults are put in here.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "@remix-run/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answerServerError, reportFault, reportUnhandledRejection } from "~/server-build/server-error.server";
import { createLastResort } from "../../../server/last-resort.mjs";
import { createHomePageCache } from "../../../server/page-cache.mjs";

/** The smallest build Remix renders: a root route whose loader answers the home page. */
const build = {
  mode: "production",
  entry: { module: { default: () => new Response("document") } },
  routes: {
    root: {
      id: "root",
      path: "",
      module: {
        // A render for the page cache says the key of its page.
        loader: () =>
          new Response("<p>home</p>", { headers: { "content-type": "text/html", "x-home-page-key": "today" } }),
      },
    },
  },
  assets: { entry: { module: "", imports: [] }, routes: {}, url: "", version: "test" },
  future: {},
  publicPath: "/build/",
  assetsBuildDirectory: "public/build",
  isSpaMode: false,
} as unknown as ServerBuild;

const servers: http.Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real server on loopback with this listener; its base URL. */
async function serve(listener: http.RequestListener): Promise<string> {
  const server = http.createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const lastResort = createLastResort({ answerServerError, isHttps: () => false });

/** A GET that fails the test in 5 s rather than waiting for an answer that never comes. */
const get = (url: string) => fetch(url, { signal: AbortSignal.timeout(5_000) });

async function expectServerErrorPage(response: Response) {
  expect(response.status).toBe(500);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
  const page = await response.text();
  expect(page).toContain("<h1>Something went wrong</h1>");
  expect(page).not.toContain("planted");
}

describe("the server's last resort", () => {
  it("answers a fault thrown at once in the request listener with the site's own 500 page", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const url = await serve(
      lastResort.listener(() => {
        throw new TypeError("planted in the listener");
      }),
    );
    await expectServerErrorPage(await get(`${url}/`));
  });

  it("answers the site's own 500 page when the cached home page's send throws, after the render and at once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const homePage = createHomePageCache({
        build,
        mode: "production",
        homePageCacheKey: () => "today",
        renderedKeyHeader: "x-home-page-key",
        flashCookieNames: [],
        isHttps: () => false,
        // Where the send first reads the request: a fault here is a fault in sending the cached page.
        matchesEtag: () => {
          throw new RangeError("planted in the page cache's send");
        },
        onError: lastResort.answer,
        reportFault,
      });
      const url = await serve(
        lastResort.listener((req, res) => homePage(req, res, () => res.writeHead(404).end("not the home page"))),
      );
      // The first request waits for the render, then sends; the second is sent from the cache within the listener.
      await expectServerErrorPage(await get(`${url}/`));
      await expectServerErrorPage(await get(`${url}/`));
      // The render itself went through: the fault was the send's.
      expect(warn.mock.calls.flat().join("\n")).toContain("RangeError: planted in the page cache's send");
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it("cuts the connection when even the 500 page cannot be written, and the process goes on", async () => {
    const broken = createLastResort({
      answerServerError: () => {
        throw new Error("planted in the 500 page");
      },
      isHttps: () => {
        throw new Error("planted in isHttps");
      },
    });
    const url = await serve(
      broken.listener(() => {
        throw new Error("planted in the listener");
      }),
    );
    await expect(get(`${url}/`)).rejects.toThrow();
  });

  it("logs a rejection nothing handles as one short escaped line, a few a minute per kind", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (let i = 0; i < 10; i++) {
      reportUnhandledRejection(new SyntaxError(`planted\nforged line ${i} ${"x".repeat(500)}`));
    }
    const lines = warn.mock.calls.map(([line]) => String(line));
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/^Unhandled rejection "SyntaxError: planted forged line \d/);
      expect(line).not.toContain("\n");
      expect(line.length).toBeLessThan(250);
    }
  });
});
