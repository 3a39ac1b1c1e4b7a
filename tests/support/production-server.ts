/**
 * Starts the real production server (node server.mjs, the current build) on a free port with a temporary
 * DATA_DIR, for integration tests that talk to it over HTTP. `npm run build` must have run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ProductionServer {
  url: string;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
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

export async function startProductionServer(env: Record<string, string> = {}): Promise<ProductionServer> {
  if (!existsSync(path.join(root, "build", "index.js")) || !existsSync(path.join(root, "build", "enhance.json"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "portfolio-it-"));
  const child: ChildProcess = spawn(process.execPath, ["server.mjs"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      SESSION_SECRET: "integration-session-secret-0123456789-abcdef",
      DATA_DIR: dataDir,
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const early = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("waiting"), 100))]);
    if (early !== "waiting") throw new Error(`server exited (${String(early)}) before it listened:\n${output}`);
    try {
      if ((await fetch(`${url}/robots.txt`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start within 20 s:\n${output}`);
    }
  }

  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
