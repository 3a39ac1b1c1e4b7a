// The page time while the Supabase edge function hangs, on a server without latest-post cache: every request waits
// for the call and its time box (LATEST_POST_TIMEOUT_MS).
import { HANG_RUNS } from "./options.mjs";
import { startProductionServer } from "./production-server.mjs";
import { stopProcess } from "./processes.mjs";
import { median } from "./report.mjs";
import { stubControl } from "./supabase-stub.mjs";

/** @param {{ url: string, anonKey: string }} stub */
export async function measureEdgeFunctionHang(stub) {
  await stubControl(stub.url, "reset", {});
  await stubControl(stub.url, "function", { kind: "hang" });
  const cold = await startProductionServer({
    SUPABASE_URL: stub.url,
    SUPABASE_ANON_KEY: stub.anonKey,
    LATEST_POST_TTL_SECONDS: "0",
    LATEST_POST_FAILURE_TTL_SECONDS: "0",
  });
  /** @type {number[]} */
  const times = [];
  /** @type {number[]} */
  const statuses = [];
  for (let i = 0; i < HANG_RUNS; i++) {
    const start = performance.now();
    const response = await fetch(`${cold.url}/`);
    await response.arrayBuffer();
    times.push(performance.now() - start);
    statuses.push(response.status);
  }
  await stopProcess(cold.child);
  const { functionCalls } = /** @type {{ functionCalls: number }} */ (
    await (await fetch(`${stub.url}/__stub/state`)).json()
  );
  return {
    runs: HANG_RUNS,
    latestPostTimeoutMs: Number(process.env.LATEST_POST_TIMEOUT_MS ?? 1500),
    medianMs: Math.round(median(times)),
    timesMs: times.map(Math.round),
    statuses,
    // 0 means the app never called the function (no latest-post implementation): the time measures nothing.
    functionCalls,
  };
}
