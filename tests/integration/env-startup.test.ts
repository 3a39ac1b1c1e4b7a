import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT, childEnv, freePort, productionEnv } from "../support/server-process-harness";

/** Runs `node server.mjs` to its end; the server must refuse to start, so it must end on its own. */
function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["server.mjs"], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server kept running:\n${stdout}${stderr}`));
    }, 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("start-up with a bad environment", () => {
  it.each([
    ["PORT", { PORT: "eighty" }, "Invalid environment: PORT must be a whole number"],
    ["SESSION_SECRET unset", { SESSION_SECRET: "" }, "Invalid environment: SESSION_SECRET is required in production"],
    ["SESSION_SECRET short", { SESSION_SECRET: "short" }, "Invalid environment: SESSION_SECRET must be at least 32"],
    [
      "Supabase half-configured",
      { SUPABASE_URL: "https://abc.supabase.co" },
      "Invalid environment: SUPABASE_ANON_KEY must be set together with the other",
    ],
    ["ALLOW_INDEXING", { ALLOW_INDEXING: "sometimes" }, "Invalid environment: ALLOW_INDEXING must be true or false"],
  ])("%s: exits non-zero with one line naming the variable, and no stack", async (_label, bad, line) => {
    const { code, stdout, stderr } = await run({ ...productionEnv({ PORT: String(await freePort()) }), ...bad });
    expect(code).not.toBe(0);
    expect(stdout).not.toContain("listening");
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
    expect(stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
});
