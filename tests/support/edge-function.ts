/**
 * Runs supabase/functions/get-latest-tweet under Deno (the npm package `deno` brings the binary), listening on a free
 * loopback port, with network access to loopback only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT, childEnv } from "./production-server";

export const FUNCTION_ENTRY = path.join(ROOT, "supabase/functions/get-latest-tweet/index.ts");

/** The Deno executable of the installed npm package (its platform package holds the binary). */
export function denoBinary(): string {
  const platform = process.platform === "linux" ? `linux-${process.arch}-glibc` : `${process.platform}-${process.arch}`;
  const candidates = [
    path.join(ROOT, "node_modules/@deno", platform, process.platform === "win32" ? "deno.exe" : "deno"),
    path.join(ROOT, "node_modules/deno/deno"),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`No Deno binary in node_modules (looked for ${candidates.join(", ")}): run npm ci`);
  return found;
}

/** Deno's own update check and prompts stay off: CI has no internet and no terminal. */
export const DENO_ENV = { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };

export interface EdgeFunction {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startEdgeFunction(env: Record<string, string>): Promise<EdgeFunction> {
  const child: ChildProcess = spawn(
    denoBinary(),
    ["run", "--no-config", "--allow-net=127.0.0.1", "--allow-env", FUNCTION_ENTRY],
    {
      cwd: ROOT,
      // Only what the function reads, plus Deno's own settings: no secret of the test process leaks in.
      env: childEnv({
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...DENO_ENV,
        DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0",
        ...env,
      }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Deno did not start in 30 s:\n${output}`)), 30_000);
    const check = () => {
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Deno exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
