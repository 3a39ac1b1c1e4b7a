// The owner's tools piped into a reader that stops early (`… | head -n 1`), as in a shell: they end quietly, with no
// EPIPE stack, and exit 0. The output is larger than a pipe holds, so the tool is still writing when `head` leaves.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addReaders, sendEnv, writeUpdate } from "../../../support/newsletter/cli";
import { ROOT, tempDir } from "../../../support/production-server";

const READERS = 4_000;
const NAME = "2025-10-01-hello";
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = tempDir("portfolio-pipe-");
  const dataDir = path.join(work, "data");
  const updatesDir = path.join(work, "updates");
  mkdirSync(updatesDir);
  writeUpdate(updatesDir, NAME, { title: "Hello" });
  await addReaders(
    dataDir,
    Array.from({ length: READERS }, (_, index) => `reader-${String(index).padStart(5, "0")}@example.org`),
  );
  env = sendEnv(dataDir, updatesDir, `file://${path.join(work, "captured")}`);
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `script args | head -n 1` in bash: the first line, the tool's stderr, and the tool's own exit code. */
function piped(script: string, args: string[]) {
  const command = `node ${script} ${args.join(" ")} | head -n 1; echo "tool exit: \${PIPESTATUS[0]}" >&2`;
  const run = spawnSync("bash", ["-c", command], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
  return { stdout: run.stdout, stderr: run.stderr };
}

describe("the owner's tools on a closed pipe", () => {
  it("subscribers list | head -n 1: one line, no stack, exit 0", () => {
    const { stdout, stderr } = piped("scripts/subscribers.mjs", ["list"]);
    expect(stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stdout).toMatch(/^reader-\d{5}@example\.org\t/);
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(stderr).toContain("tool exit: 0");
  });

  it("newsletter send --dry-run | head -n 1: the same", () => {
    const { stdout, stderr } = piped("scripts/newsletter.mjs", ["send", NAME, "--dry-run"]);
    expect(stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(stderr).toContain("tool exit: 0");
  });
});
