// The production server: static files, the Remix request handler, and a graceful shutdown.
// We run our own small server instead of remix-serve because the app needs the client's address (rate limit),
// a bounded shutdown that closes the embedded database, and a fast path for the cached home page.
import { existsSync, watch } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import { broadcastDevReady } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { buildIfStale } from "./build-freshness.mjs";
import { createLastResort } from "./last-resort.mjs";
import { createHomePageCache } from "./page-cache.mjs";

// The project's root: this file is in server/.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildPath = path.join(root, "build", "index.js");
// Under Docker's default stop timeout (10 s, then SIGKILL), leaving time for the shutdown build.
const SHUTDOWN_GRACE_MS = 8_000;
// How long a new connection may stay silent: far longer than a browser's or a proxy's wait between opening a connection
// and sending on it, and still a bound on what a client can hold without asking for anything.
const FIRST_REQUEST_TIMEOUT_MS = 15_000;

// A local .env fills in what the environment leaves unset, as `node --env-file-if-exists` would, without the notice
// Node prints when there is none (a fresh clone's first `npm start`).
const envFile = path.join(root, ".env");
if (existsSync(envFile)) process.loadEnvFile(envFile);

// Under `npm run dev` the compiler owns the build (it has just made it); otherwise a missing build, or one older than
// a source it is made from, is made first: never a stale page (server/build-freshness.mjs).
if (!process.env.REMIX_DEV_ORIGIN) buildIfStale(root);

/**
 * Loads the server build; `version` makes Node load a rebuilt file anew (`npm run dev`). A bad environment stops
 * start-up with its own clear lines; anything else keeps its stack.
 * @param {number} [version]
 * @returns {Promise<AppBuild>}
 */
async function loadBuild(version) {
  return import(`${pathToFileURL(buildPath).href}${version ? `?v=${version}` : ""}`);
}

/** @param {unknown} error */
function reportLoadError(error) {
  // A bad setting, a damaged store file or a bad update file: the message says it all, a stack would only bury it.
  if (
    error instanceof Error &&
    ["EnvError", "StoreFileError", "UpdateFileError", "WelcomeFileError"].includes(error.name)
  ) {
    console.error(error.message);
  } else {
    console.error(error);
  }
}

/**
 * build/index.js: Remix's build and what the app gives this server (app/server-build/build-entry.server.ts).
 * @typedef {typeof import("../app/server-build/build-entry.server")} AppBuild
 */
/** @type {AppBuild} */
let build;
try {
  build = await loadBuild();
  // Settings that would otherwise go unnoticed: a misspelt variable keeps its default, and mail off confirms at once.
  // A misspelt mail setting stops production outright.
  build.refuseMailLookalikes();
  for (const line of build.settingsWarnings()) console.warn(line);
  console.info(build.mailStartupLine());
  build.onStart();
} catch (error) {
  reportLoadError(error);
  process.exit(1);
}
const { env } = build;
const development = env.NODE_ENV === "development";

let shuttingDown = false;
/** @type {Set<import("node:http").ServerResponse>} Responses not yet closed: what a shutdown waits for. */
const openResponses = new Set();

const app = express();
app.disable("x-powered-by");
// With a proxy in front, req.protocol (and so the request URL Remix sees, and HSTS) follows its X-Forwarded-Proto.
// One hop: the proxy's own entry, as clientAddress below.
app.set("trust proxy", env.TRUST_PROXY ? 1 : false);
// The site only reads pages and takes one form: other methods get a short answer instead of reaching Remix, which
// logs an error for OPTIONS. OPTIONS is a preflight or a probe: 204 with what is allowed, no CORS grant.
app.use((req, res, next) => {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "POST") return next();
  res.set({ ...build.staticHeaders(req.protocol === "https"), Allow: "GET, HEAD, POST" });
  res.status(req.method === "OPTIONS" ? 204 : 405).end();
});
// No size threshold: most of the page's modules are 0.3–1.5 KiB, and the default (1 KiB) sent several of them raw.
app.use(compression({ threshold: 0 }));
/** @type {(res: import("express").Response) => void} */
const setStaticHeaders = (res) => {
  for (const [name, value] of Object.entries(build.staticHeaders(res.req.protocol === "https"))) {
    res.setHeader(name, value);
  }
};
// Hashed file names: safe to cache for a year.
app.use(
  "/build",
  express.static(path.join(root, "public", "build"), {
    immutable: true,
    maxAge: "1y",
    index: false,
    // No directory redirects: express.static's adds a slash to whatever path it got, and a path such as
    // `/\evil.com/../build` became `Location: /\evil.com/../build/`, which browsers resolve to another site.
    redirect: false,
    setHeaders: setStaticHeaders,
  }),
);
app.use(
  express.static(path.join(root, "public"), {
    maxAge: "1h",
    index: false,
    redirect: false,
    setHeaders: setStaticHeaders,
  }),
);
app.all(
  "*",
  createRequestHandler({
    // In development the newest build answers (see the watch below).
    build: development ? async () => build : build,
    mode: env.NODE_ENV,
    // The visitor's address: the socket's, or with TRUST_PROXY the last X-Forwarded-For entry (the one our own proxy
    // added; earlier ones are whatever the client claimed). The app reduces it to one key per visitor.
    getLoadContext: (req) => ({ clientAddress: req.ip ?? "unknown" }),
  }),
);

/** Whether Express would call this request HTTPS (its `req.protocol`), for the cached page's HSTS header. */
/** @param {import("node:http").IncomingMessage} req */
function isHttps(req) {
  if ("encrypted" in req.socket && req.socket.encrypted) return true;
  if (!app.get("trust proxy fn")(req.socket.remoteAddress, 0)) return false;
  return build.firstValue(req.headers["x-forwarded-proto"]) === "https";
}

// The site's own 500 page for whatever throws around Remix: in Express, at once in the server's listener, or later
// in the page cache's render.
const lastResort = createLastResort({
  // Through `build` at the time of the fault: in development it is the newest build.
  answerServerError: (req, res, error, https) => build.answerServerError(req, res, error, https),
  isHttps,
});
// Whatever reaches Express's error handling (Remix's adapter throws before Remix runs, for one) gets the site's own
// page, never Express's default one with its stack.
app.use(
  /** @type {import("express").ErrorRequestHandler} */
  (error, req, res, _next) => lastResort.answer(req, res, error),
);
// A fault nobody awaits (in no request's path, or one the listener cannot see) must not end the process and every
// request in flight with it, as Node's default does: one short throttled line instead.
process.on("unhandledRejection", (reason) => build.reportUnhandledRejection(reason));

// The anonymous home page is answered from memory before Express (docs/decisions/006-page-cache-and-csp.md); not in
// development, where every edit must show.
/** @type {ReturnType<typeof createHomePageCache>} */
const homePage = development
  ? (_req, _res, next) => next()
  : createHomePageCache({
      build,
      mode: env.NODE_ENV,
      homePageCacheKey: build.homePageCacheKey,
      renderedKeyHeader: build.renderedKeyHeader,
      flashCookieNames: build.flashCookieNames,
      isHttps,
      matchesEtag: build.matchesEtag,
      onError: lastResort.answer,
      // One short throttled line: the render is tried again for the next visitor, and may fail again.
      reportFault: build.reportFault,
    });
// Malformed, oversized and cross-site requests are answered before the page cache, Express and Remix see them.
let guard = build.requestGuard({ isHttps });

/** @param {import("node:http").ServerResponse} res */
function trackResponse(res) {
  // A request that arrives on an open connection during shutdown is still answered, then its connection closes.
  if (shuttingDown) res.setHeader("Connection", "close");
  openResponses.add(res);
  res.once("close", () => {
    openResponses.delete(res);
    // Keep-alive would hold the connection (and so the shutdown) open until the grace period ends.
    if (shuttingDown) setImmediate(() => server.closeIdleConnections());
  });
}

const server = http.createServer(
  lastResort.listener((req, res) => {
    // Every response is tracked, the cached home page's too, so a shutdown waits for it and closes its connection.
    trackResponse(res);
    if (guard(req, res)) return;
    homePage(req, res, () => app(req, res));
  }),
);
server.keepAliveTimeout = 65_000;
// A connection that never sends a byte is covered by none of Node's limits (headersTimeout starts with the first
// byte; keepAliveTimeout after a response): a thousand such sockets from one client used up the descriptors. Each
// new connection gets an inactivity limit until its first request arrives; any byte restarts it, and a request
// trickling its headers is still cut by headersTimeout. Node's own timeout handler destroys the idle socket.
server.on("connection", (socket) => socket.setTimeout(FIRST_REQUEST_TIMEOUT_MS));
server.on("request", (req) => {
  // From here on Node's own limits apply (and keepAliveTimeout between requests).
  if (req.socket.timeout === FIRST_REQUEST_TIMEOUT_MS) req.socket.setTimeout(0);
});
server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const where =
    typeof address === "object" && address
      ? `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`
      : String(address);
  console.log(`Portfolio listening on ${where} (${env.NODE_ENV})`);
  // `remix dev` waits for this before it tells the open browsers to reload.
  if (development && process.env.REMIX_DEV_ORIGIN) broadcastDevReady(build);
});

if (development && process.env.REMIX_DEV_ORIGIN) watchBuild();

/**
 * `npm run dev`: `remix dev` rebuilds on every edit; the server loads each new build and says when it is ready. Loads
 * run one at a time, in order: on a busy machine a load started early (on the compiler's first file, perhaps before
 * it rewrote the server build) could otherwise finish after a later one and put the older build back.
 */
function watchBuild() {
  /** @type {NodeJS.Timeout | undefined} */
  let pending;
  let loads = Promise.resolve();
  let latest = 0;
  watch(path.dirname(buildPath), () => {
    // The compiler writes several files per build: load once they are all there.
    clearTimeout(pending);
    pending = setTimeout(() => {
      const generation = ++latest;
      loads = loads.then(() => (generation === latest ? reloadBuild() : undefined));
    }, 100);
  });
}

async function reloadBuild() {
  const previous = build;
  try {
    const next = await loadBuild(Date.now());
    next.onStart();
    build = next;
  } catch (error) {
    // The page keeps the last build that loaded; the next edit tries again.
    reportLoadError(error);
    return;
  }
  guard = build.requestGuard({ isHttps });
  // The old build's resources (the embedded store's connection) go with it.
  await previous.onShutdown();
  broadcastDevReady(build);
}

server.on("error", (error) => {
  console.error(`Server error: ${error.message}`);
  process.exit(1);
});

/** @param {string} signal */
function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log(`${signal} received: finishing in-flight requests, then exiting.`);
  for (const res of openResponses) {
    if (!res.headersSent) res.setHeader("Connection", "close");
  }
  const deadline = setTimeout(() => {
    console.warn(`Requests still open after ${SHUTDOWN_GRACE_MS} ms: closing them.`);
    server.closeAllConnections();
  }, SHUTDOWN_GRACE_MS);
  deadline.unref();
  server.close(() => {
    clearTimeout(deadline);
    Promise.resolve(build.onShutdown?.())
      .catch((error) => console.error("Error during shutdown:", error))
      .finally(() => {
        console.log("Shut down cleanly.");
        process.exit(0);
      });
  });
  server.closeIdleConnections();
}
process.once("SIGTERM", () => shutdown("SIGTERM"));
process.once("SIGINT", () => shutdown("SIGINT"));
