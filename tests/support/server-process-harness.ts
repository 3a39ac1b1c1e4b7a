// Starts the real production server (`node server.mjs`, the same file the Docker image runs) as a child process.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { ENV_VARIABLES } from "~/env.server";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TEST_SESSION_SECRET = "integration-test-session-secret-0123456789abcdef";

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

/** A child's environment: exactly these variables (no inheritance). Some package types declare NODE_ENV required. */
export const childEnv = (variables: Record<string, string>) => variables as NodeJS.ProcessEnv;

// Every temporary directory of a test file lives under one root, removed after the file's own afterAll hooks (which
// stop its servers): vitest runs after-hooks in reverse order of registration, and this one is registered first.
const tempRoot = mkdtempSync(path.join(tmpdir(), "portfolio-tests-"));
afterAll(() => rmSync(tempRoot, { recursive: true, force: true }));
export const tempDir = (prefix: string) => mkdtempSync(path.join(tempRoot, prefix));

/**
 * A production environment with every variable the app reads set explicitly (empty means unset), so that a
 * developer's `.env` or shell cannot leak into a test.
 */
export function productionEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const name of ENV_VARIABLES) env[name] = "";
  return {
    ...env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    SESSION_SECRET: TEST_SESSION_SECRET,
    DATA_DIR: tempDir("portfolio-data-"),
    SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
    ...overrides,
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** Everything the server printed so far, stdout and stderr interleaved. */
  output: () => string;
  exited: Promise<Exit>;
  /** Resolves once the output contains `text`. */
  waitForOutput: (text: string, timeoutMs?: number) => Promise<void>;
  stop: () => Promise<Exit>;
}

export interface StartOptions {
  env?: Record<string, string>;
  cwd?: string;
  args?: string[];
}

/** Runs `node server.mjs` (or `args`) and waits until it listens; rejects with its output if it exits first. */
export async function startServer({
  env,
  cwd = ROOT,
  args = ["server.mjs"],
}: StartOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd,
    env: childEnv({ ...productionEnv(), ...env, PORT: String(port) }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

  const waitForOutput = (text: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!output.includes(text)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no "${text}" within ${timeoutMs} ms; output:\n${output}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  const listening = waitForOutput("listening on", 60_000);
  const early = exited.then((exit) => {
    throw new Error(`server exited (${exit.code ?? exit.signal}) before listening:\n${output}`);
  });
  // Whichever loses the race must not surface later as an unhandled rejection.
  listening.catch(() => {});
  early.catch(() => {});
  await Promise.race([listening, early]);

  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    exited,
    waitForOutput,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
