// The processes and temporary folders the benchmark makes, and the little it needs to wait for them. Any exit (an
// error or Ctrl-C included) stops every process it started, by pid, one by one, and removes the folders.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { root } from "./options.mjs";

/** @type {Set<import("node:child_process").ChildProcess>} */
const children = new Set();
/** @type {string[]} */
const tempDirs = [];
function cleanUp() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}
process.on("exit", cleanUp);
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

/** Removes `dir` (a `tempDir()`) when the benchmark exits, however it exits. @param {string} dir */
export function removeOnExit(dir) {
  tempDirs.push(dir);
  return dir;
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** True when `url` answers 2xx, undefined otherwise (a `ready` callback for startProcess). @param {string} url */
export async function answers(url) {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.ok ? true : undefined;
  } catch {
    return undefined;
  }
}

export { freePort, tempDir } from "../tests/support/server-process.mjs";

/** Stops `child` with the benchmark's other processes, however the benchmark exits. @param {import("node:child_process").ChildProcess} child */
export function adopt(child) {
  children.add(child);
}

/**
 * Starts a process and waits until `ready(output)` returns a value (or the process exits, or 30 s pass).
 * @template T
 * @param {string} name @param {string} command @param {string[]} args
 * @param {Record<string, string | undefined>} env @param {(output: string) => T | undefined | Promise<T | undefined>} ready
 * @returns {Promise<{ child: import("node:child_process").ChildProcess, value: T, output: () => string }>}
 */
export async function startProcess(name, command, args, env, ready) {
  const child = spawn(command, args, { cwd: root, env: /** @type {NodeJS.ProcessEnv} */ (env), stdio: "pipe" });
  children.add(child);
  let output = "";
  child.stdout.on("data", (/** @type {Buffer} */ chunk) => (output += chunk));
  child.stderr.on("data", (/** @type {Buffer} */ chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    const value = await ready(output);
    if (value !== undefined) return { child, value, output: () => output };
    await sleep(100);
  }
  throw new Error(`${name} did not get ready in 30 s:\n${output}`);
}

/** @param {import("node:child_process").ChildProcess} child */
export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  children.delete(child);
}
