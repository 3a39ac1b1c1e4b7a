import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { logField, warnThrottled } from "~/utils/log.server";
import { NonceContext } from "~/utils/nonce";
import { carriesVisitorData, PRIVATE_CACHE_CONTROL } from "~/utils/private-response.server";
import { FLASH_COOKIE_NAMES } from "~/utils/toast.server";
import { BootstrapScriptsContext } from "~/perf/scripts-after-first-paint";
import { contextToRender } from "~/perf/switch.server";
import { RENDERED_KEY_HEADER, renderedHomePageKey } from "~/server-build/home-page-key.server";
import { type ScriptPolicy, createNonce, inlineScriptHashes, securityHeaders } from "~/utils/security-headers.server";

const RENDER_TIMEOUT_MS = 5_000;
// Single fetch streams loader data with the same bound as the document (the page has no deferred data anyway).
export const streamTimeout = RENDER_TIMEOUT_MS;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const shared = loadContext.sharedPage === true;
  const nonce = shared ? undefined : createNonce();
  // The whole document is rendered before it is sent: the page has no deferred data, so visitors with and without
  // JavaScript get the same complete HTML, and the cached page's CSP lists the hashes of the inline scripts of that
  // whole HTML.
  const { context, scripts: bootstrap } = await contextToRender(remixContext, new URL(request.url).pathname);
  const html = await renderDocument(
    <NonceContext.Provider value={nonce}>
      <BootstrapScriptsContext.Provider value={bootstrap}>
        <RemixServer context={context} url={request.url} abortDelay={RENDER_TIMEOUT_MS} nonce={nonce} />
      </BootstrapScriptsContext.Provider>
    </NonceContext.Provider>,
  );
  const scripts: ScriptPolicy = nonce ? { nonce } : { inlineScriptHashes: inlineScriptHashes(html) };
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  if (carriesVisitorData(request, responseHeaders, remixContext, FLASH_COOKIE_NAMES)) {
    responseHeaders.set("Cache-Control", PRIVATE_CACHE_CONTROL);
  } else if (!responseHeaders.has("Cache-Control")) {
    responseHeaders.set("Cache-Control", "no-cache");
  }
  for (const [name, value] of Object.entries(securityHeaders(scripts, request))) responseHeaders.set(name, value);
  // A render for the page cache says which (date, latest post) its page shows: the key comes from the render itself.
  const key = shared ? renderedHomePageKey(remixContext) : null;
  if (key !== null) responseHeaders.set(RENDERED_KEY_HEADER, key);
  return new Response(html, { status: responseStatusCode, headers: responseHeaders });
}

export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  // A data request answers one visitor's navigation (the root's carries the flash): never for a shared cache.
  response.headers.set("Cache-Control", PRIVATE_CACHE_CONTROL);
  for (const [name, value] of Object.entries(securityHeaders({ nonce: createNonce() }, request))) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
};

/**
 * What Remix reports. A route error response (405 for a post where no route has an action, 404 for a data request to
 * nowhere) is the visitor's mistake: one short, throttled line. Anything else is ours: the whole error with its stack.
 */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error)) {
    const { pathname, search } = new URL(request.url);
    warnThrottled(`Refused ${error.status}: ${request.method} ${logField(pathname + search)}`);
    return;
  }
  console.error(error);
};

/**
 * React 18's Fizz writer (react-dom/server, VIEW_SIZE 2048) flushes its whole 2048-byte view when a string's next
 * character does not fit in the bytes left, unwritten zero bytes included: a "€" landing one byte before the view's end
 * put a U+0000 into the home page (the Nu Html Checker's "Saw U+0000 in stream"). Only such a full view can end in
 * zero bytes that React never meant to write; the document's own text never holds U+0000.
 */
const REACT_VIEW_SIZE = 2048;
function withoutUnwrittenTail(chunk: Buffer): Buffer {
  if (chunk.length !== REACT_VIEW_SIZE || chunk[chunk.length - 1] !== 0) return chunk;
  let end = chunk.length;
  while (end > 0 && chunk[end - 1] === 0) end--;
  return chunk.subarray(0, end);
}

function renderDocument(element: React.ReactElement): Promise<string> {
  return new Promise((resolve, reject) => {
    let failed: unknown;
    // eslint-disable-next-line prefer-const -- assigned after the render starts, read by its callbacks
    let timer: NodeJS.Timeout | undefined;
    const { pipe, abort } = renderToPipeableStream(element, {
      onAllReady() {
        const chunks: Buffer[] = [];
        const sink = new PassThrough();
        sink.on("data", (chunk: Buffer) => chunks.push(withoutUnwrittenTail(chunk)));
        sink.on("end", () => {
          // Without this the pending timer keeps the whole render alive for RENDER_TIMEOUT_MS: under load that was
          // over a gigabyte of memory (bench: RSS after the throughput run).
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString("utf8"));
        });
        sink.on("error", reject);
        pipe(sink);
      },
      onShellError(error) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error) {
        failed = error;
        console.error("Render error:", error);
      },
    });
    timer = setTimeout(() => abort(failed ?? new Error("render timed out")), RENDER_TIMEOUT_MS);
    timer.unref();
  });
}
