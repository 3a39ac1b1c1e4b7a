// The real production server (`node server/index.mjs` on the last `npm run build`, the same file the Docker image
// runs) as a child process, and a free port to put it on: the one way the tests (through production-server.ts), the
// browser tests (playwright.config.ts), `npm run observatory` and the bench start it and wait for it. Plain Node with
// JSDoc types, so scripts import it as it is; no test-runner import.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { staleBuildReason } from "../../server/build-freshness.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TEST_SESSION_SECRET = "integration-test-session-secret-0123456789abcdef";

// The variables `.env.example` documents, which tests/unit/utils/env.test.ts holds equal to ENV_VARIABLES of
// app/utils/env.server.ts. Not imported from there: that module parses the runner's own environment when loaded, which
// warns (or throws, given a bad shell variable) in Playwright, where NODE_ENV is not "test".
const ENV_VARIABLES = [...readFileSync(path.join(ROOT, ".env.example"), "utf8").matchAll(/^([A-Z_]+)=/gm)].map(
  (match) => /** @type {string} */ (match[1]),
);

// Under Vitest's 30 s test timeout, so that a server that hangs fails with its output rather than a bare timeout.
const TIMEOUT_MS = 20_000;

/**
 * A port nothing listens on right now, on loopback.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A new directory under the system's temporary folder; whoever asks for it removes it.
 * @param {string} [prefix]
 */
export const tempDir = (prefix = "portfolio-test-") => mkdtempSync(path.join(tmpdir(), prefix));

/**
 * A production environment with every variable the app reads set explicitly (empty means unset), so that neither a
 * developer's shell nor a local `.env` (server/index.mjs reads it for unset variables only) can leak into a run.
 * @param {Record<string, string>} [overrides]
 * @returns {Record<string, string>}
 */
export function productionEnv(overrides = {}) {
  return {
    ...Object.fromEntries(ENV_VARIABLES.map((name) => [name, ""])),
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    SESSION_SECRET: TEST_SESSION_SECRET,
    SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
    ...overrides,
  };
}

/** @typedef {{ code: number | null, signal: NodeJS.Signals | null }} Exit */

/**
 * @typedef {object} ServerOptions
 * @property {Record<string, string>} [env] Overrides of `productionEnv()`. PORT defaults to a free port; DATA_DIR to a
 *   temporary directory that is removed once the server has exited.
 * @property {string} [cwd] Another directory (the Docker replay runs its image's CMD in the image's directory).
 * @property {string[]} [args] Another command line for Node.
 */

/**
 * @typedef {object} ServerProcess
 * @property {string} url
 * @property {import("node:child_process").ChildProcessByStdio<null, import("node:stream").Readable, import("node:stream").Readable>} child
 * @property {(stream?: "stdout" | "stderr") => string} output Everything the server printed so far: stdout and stderr
 *   interleaved, or one of them.
 * @property {(text: string, timeoutMs?: number) => Promise<void>} waitForOutput Resolves once the output contains
 *   `text`; rejects with the output if the server exits or `timeoutMs` passes.
 * @property {Promise<Exit>} exited Resolves when the process has exited (and its temporary DATA_DIR is gone).
 * @property {() => Promise<Exit>} stop Sends SIGTERM unless the process has already exited, and waits for the exit.
 */

/**
 * Starts the server process without waiting for it.
 * @param {ServerOptions} options
 * @returns {Promise<ServerProcess>}
 */
export async function launchServer({ env = {}, cwd = ROOT, args = ["server/index.mjs"] }) {
  // server/index.mjs would build on its own (no build, or one older than its sources), slowly, and racing any other
  // run that starts a server; and a test of an old build proves nothing about the sources.
  const stale = staleBuildReason(cwd);
  if (stale) throw new Error(`${stale}: run \`npm run build\` first (npm test does).`);
  const port = env.PORT ?? String(await freePort());
  const ownDataDir = env.DATA_DIR === undefined ? tempDir("portfolio-data-") : undefined;
  /** @type {ServerProcess["child"]} */
  const child = spawn(process.execPath, args, {
    cwd,
    // Exactly these variables, no inheritance (some package types declare NODE_ENV required: it is set).
    env: /** @type {NodeJS.ProcessEnv} */ (
      productionEnv({ PORT: port, ...(ownDataDir && { DATA_DIR: ownDataDir }), ...env })
    ),
    stdio: /** @type {["ignore", "pipe", "pipe"]} */ (["ignore", "pipe", "pipe"]),
  });

  const printed = { all: "", stdout: "", stderr: "" };
  let closed = false;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  for (const stream of /** @type {const} */ (["stdout", "stderr"])) {
    child[stream].on("data", (/** @type {Buffer} */ chunk) => {
      printed[stream] += chunk.toString();
      printed.all += chunk.toString();
      notify();
    });
  }
  // "close", not "exit": it comes once the output has been read to its end.
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) =>
    child.once("close", (code, signal) => {
      closed = true;
      notify();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );

  /** @type {ServerProcess["waitForOutput"]} */
  const waitForOutput = (text, timeoutMs = TIMEOUT_MS) =>
    new Promise((resolve, reject) => {
      /** @param {Error} [error] */
      const settle = (error) => {
        clearTimeout(timer);
        listeners.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (printed.all.includes(text)) settle();
        else if (closed) settle(new Error(`the server exited without printing "${text}"; output:\n${printed.all}`));
      };
      const timer = setTimeout(
        () => settle(new Error(`no "${text}" within ${timeoutMs} ms; output:\n${printed.all}`)),
        timeoutMs,
      );
      listeners.add(check);
      check();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: (stream) => printed[stream ?? "all"],
    waitForOutput,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/**
 * Whichever comes first: the server listening, or its exit. A server that does neither in time is killed.
 * @param {ServerProcess} server
 * @returns {Promise<Exit | "listening">}
 */
async function listeningOrExit(server) {
  try {
    await server.waitForOutput("Portfolio listening on");
    return "listening";
  } catch (error) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited;
    server.child.kill("SIGKILL");
    await server.exited;
    throw error;
  }
}

/**
 * Starts the server and resolves once it listens; rejects with its output if it exits or hangs first.
 * @param {ServerOptions} [options]
 * @returns {Promise<ServerProcess>}
 */
export async function startServer(options = {}) {
  const server = await launchServer(options);
  const outcome = await listeningOrExit(server);
  if (outcome !== "listening") {
    throw new Error(`server exited (${outcome.code ?? outcome.signal}) before listening:\n${server.output()}`);
  }
  return server;
}

/**
 * Starts the server expecting it to refuse: resolves with its exit and output; rejects if it listens.
 * @param {ServerOptions} [options]
 * @returns {Promise<{ exit: Exit, output: ServerProcess["output"] }>}
 */
export async function startServerExpectingFailure(options = {}) {
  const server = await launchServer(options);
  const outcome = await listeningOrExit(server);
  if (outcome === "listening") {
    await server.stop();
    throw new Error(`the server started although it should have refused:\n${server.output()}`);
  }
  return { exit: outcome, output: server.output };
}
