/**
 * Runs the production server (`node server.mjs`, reading build/index.js) as a child process on a free port, for
 * tests that must go through real HTTP: the Remix request handler, our load context, cookies and the store.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TEST_SESSION_SECRET = "integration-session-secret-0123456789abcdef";

export interface ServerProcess {
  url: string;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Sends SIGTERM and waits for the process to exit; resolves with its exit code. */
  stop(): Promise<number | null>;
}

export function assertBuilt() {
  if (!existsSync(path.join(ROOT, "build", "index.js")) || !existsSync(path.join(ROOT, "build", "enhance.json"))) {
    throw new Error("These tests run the production build: run `npm run build` first (`npm test` does).");
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function baseEnv(port: number, env: Record<string, string>): NodeJS.ProcessEnv {
  // Only what the server needs: nothing leaks in from the developer's shell, and the empty values keep a local .env
  // (which server.mjs reads for unset variables only) from switching the store to Supabase.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SUPABASE_URL: "",
    SUPABASE_ANON_KEY: "",
    TRUST_PROXY: "false",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    SESSION_SECRET: TEST_SESSION_SECRET,
    SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
    ...env,
  };
}

function collect(child: ChildProcess) {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return () => output;
}

/** Starts the server and resolves once it answers; rejects with its output if it exits first. */
export async function startServer(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  assertBuilt();
  const port = await freePort();
  const child = spawn(process.execPath, ["server.mjs"], { cwd: ROOT, env: baseEnv(port, env), stdio: "pipe" });
  const output = collect(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/robots.txt`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not answer within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export async function startServerExpectingFailure(env: Record<string, string>, timeoutMs = 20_000) {
  assertBuilt();
  const port = await freePort();
  const child = spawn(process.execPath, ["server.mjs"], { cwd: ROOT, env: baseEnv(port, env), stdio: "pipe" });
  const output = collect(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output: output() };
}
