/**
 * The real production server (`node server/index.mjs` on the last `npm run build`, the same file the Docker image runs) as
 * a child process, for tests that must go through real HTTP. No test-runner import: Vitest and Playwright both use it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TEST_SESSION_SECRET = "integration-test-session-secret-0123456789abcdef";

// The variables `.env.example` documents, which tests/unit/env.test.ts holds equal to ENV_VARIABLES of
// app/utils/env.server.ts. Not imported from there: that module parses the runner's own environment when loaded, which
// warns (or throws, given a bad shell variable) in Playwright, where NODE_ENV is not "test".
const ENV_VARIABLES = [...readFileSync(path.join(ROOT, ".env.example"), "utf8").matchAll(/^([A-Z_]+)=/gm)].map(
  (match) => match[1]!,
);

// Under Vitest's 30 s test timeout, so that a server that hangs fails with its output rather than a bare timeout.
const TIMEOUT_MS = 20_000;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A new directory under the system's temporary folder; whoever asks for it removes it. */
export const tempDir = (prefix = "portfolio-test-") => mkdtempSync(path.join(tmpdir(), prefix));

/** A child's environment: exactly these variables (no inheritance). Some package types declare NODE_ENV required. */
export const childEnv = (variables: Record<string, string>) => variables as NodeJS.ProcessEnv;

/**
 * A production environment with every variable the app reads set explicitly (empty means unset), so that neither a
 * developer's shell nor a local `.env` (server/index.mjs reads it for unset variables only) can leak into a test.
 */
export function productionEnv(overrides: Record<string, string> = {}): Record<string, string> {
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

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerOptions {
  /**
   * Overrides of `productionEnv()`. PORT defaults to a free port; DATA_DIR to a temporary directory that is removed
   * once the server has exited.
   */
  env?: Record<string, string>;
  /** Another directory and command line (the Docker replay runs its image's CMD in the image's directory). */
  cwd?: string;
  args?: string[];
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the server printed so far: stdout and stderr interleaved, or one of them. */
  output(stream?: "stdout" | "stderr"): string;
  /** Resolves once the output contains `text`; rejects with the output if the server exits or `timeoutMs` passes. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves when the process has exited (and its temporary DATA_DIR is gone). */
  exited: Promise<Exit>;
  /** Sends SIGTERM unless the process has already exited, and waits for the exit. */
  stop(): Promise<Exit>;
}

async function launch({ env = {}, cwd = ROOT, args = ["server/index.mjs"] }: ServerOptions): Promise<ServerProcess> {
  for (const file of ["build/index.js"]) {
    // server/index.mjs would build on its own, slowly, and racing any other test file that starts a server.
    if (!existsSync(path.join(cwd, file))) throw new Error(`No ${file}: run \`npm run build\` first (npm test does).`);
  }
  const port = env.PORT ?? String(await freePort());
  const ownDataDir = env.DATA_DIR === undefined ? tempDir("portfolio-data-") : undefined;
  const child = spawn(process.execPath, args, {
    cwd,
    env: childEnv(productionEnv({ PORT: port, ...(ownDataDir && { DATA_DIR: ownDataDir }), ...env })),
    stdio: ["ignore", "pipe", "pipe"],
  });

  const printed = { all: "", stdout: "", stderr: "" };
  let closed = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream].on("data", (chunk: Buffer) => {
      printed[stream] += chunk.toString();
      printed.all += chunk.toString();
      notify();
    });
  }
  // "close", not "exit": it comes once the output has been read to its end.
  const exited = new Promise<Exit>((resolve) =>
    child.once("close", (code, signal) => {
      closed = true;
      notify();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );

  const waitForOutput = (text: string, timeoutMs = TIMEOUT_MS) =>
    new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
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

/** Whichever comes first: the server listening, or its exit. A server that does neither in time is killed. */
async function listeningOrExit(server: ServerProcess): Promise<Exit | "listening"> {
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

/** Starts the server and resolves once it listens; rejects with its output if it exits or hangs first. */
export async function startServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const server = await launch(options);
  const outcome = await listeningOrExit(server);
  if (outcome !== "listening") {
    throw new Error(`server exited (${outcome.code ?? outcome.signal}) before listening:\n${server.output()}`);
  }
  return server;
}

/** Starts the server expecting it to refuse: resolves with its exit and output; rejects if it listens. */
export async function startServerExpectingFailure(
  options: ServerOptions = {},
): Promise<{ exit: Exit; output: ServerProcess["output"] }> {
  const server = await launch(options);
  const outcome = await listeningOrExit(server);
  if (outcome === "listening") {
    await server.stop();
    throw new Error(`the server started although it should have refused:\n${server.output()}`);
  }
  return { exit: outcome, output: server.output };
}

/**
 * The servers and scratch folders one test file starts, all stopped and removed by `cleanup()` (call it from
 * `afterEach` or `afterAll`): the one place tests start the production server from.
 */
export function serverHarness(prefix = "portfolio-test-") {
  const servers: ServerProcess[] = [];
  const dirs: string[] = [];
  return {
    /** Starts a server with these env overrides (a DATA_DIR of its own unless given). */
    async start(env: Record<string, string> = {}, options: Omit<ServerOptions, "env"> = {}) {
      const server = await startServer({ ...options, env });
      servers.push(server);
      return server;
    },
    /** A temporary folder removed at cleanup. */
    scratchDir() {
      const dir = tempDir(prefix);
      dirs.push(dir);
      return dir;
    },
    async cleanup() {
      await Promise.all(servers.splice(0).map((server) => server.stop()));
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `task` for every item with at most `concurrency` in flight; results in the items' order. */
export async function inPool<T, R>(items: T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
