// Two reference pages measured by Lighthouse beside `/`, on the same machine in the same minutes: what the machine
// itself allows. "empty" is a valid page of one heading and one paragraph; "ours without scripts" is the cached `/`
// with every script and module preload taken out (what a visitor without JavaScript gets). Neither is gated: when
// even the empty page misses a goal, no page can meet it on this machine, and the figures say so.
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";

const EMPTY_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Reference</title>
<meta name="description" content="An empty page, measured to know what the machine allows."></head>
<body><h1>Reference</h1><p>One heading and one paragraph, no style, no script.</p></body></html>`;

/** `html` without its scripts (inline or not) and module preloads. @param {string} html */
export function withoutScripts(html) {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/<link rel="modulepreload"[^>]*>/g, "");
}

/**
 * Serves the reference pages on loopback (`/empty`, `/without-scripts`); any other path (the photo, the icons) is
 * fetched from the app, so the page without scripts loads exactly what it would from the app.
 * @param {string} appUrl @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startReferencePages(appUrl) {
  const ours = withoutScripts(await (await fetch(`${appUrl}/`)).text());
  const pages = new Map([
    ["/empty", gzipSync(EMPTY_PAGE)],
    ["/without-scripts", gzipSync(ours)],
  ]);
  const server = createServer((request, response) => {
    const page = pages.get(request.url ?? "");
    if (page !== undefined) {
      // Compressed like the app's `/`, so the simulated download is the same size.
      response.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-encoding": "gzip",
        "cache-control": "no-store",
      });
      response.end(page);
      return;
    }
    fetch(new URL(request.url ?? "/", appUrl))
      .then(async (upstream) => {
        const type = upstream.headers.get("content-type");
        response.writeHead(upstream.status, type ? { "content-type": type } : {});
        response.end(Buffer.from(await upstream.arrayBuffer()));
      })
      .catch(() => response.writeHead(502).end());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
