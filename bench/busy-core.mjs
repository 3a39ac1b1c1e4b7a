// The second condition of the Lighthouse runs: one core kept busy by another process, as on a loaded VPS or beside a
// noisy neighbour. A plain Node process spinning at 100 % of one core, started and stopped by the benchmark.
import { spawn } from "node:child_process";

export function startBusyCore() {
  const child = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  return {
    /** @returns {Promise<void>} */
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
      child.kill("SIGTERM");
      return /** @type {Promise<void>} */ (exited);
    },
  };
}
