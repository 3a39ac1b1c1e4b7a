// The comparison pass of `npm run bench`: `/` again with app/perf/ switched off (PERF_TWEAKS=off), on the quiet machine
// and loopback, so each report shows what that folder buys. Not gated: Remix's own output is expected to miss goals.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { lighthouseRuns } from "./lighthouse.mjs";
import { LIGHTHOUSE_RUNS, root } from "./options.mjs";
import { measureBytes } from "./page-bytes.mjs";
import { startProductionServer } from "./production-server.mjs";
import { answers, stopProcess } from "./processes.mjs";

/** Puts the build's compile hint in or takes it out (app/perf/compile-hints.mjs). @param {"on" | "off"} value */
const compileHints = (value) =>
  execFileSync(process.execPath, [path.join(root, "app", "perf", "compile-hints.mjs")], {
    cwd: root,
    env: { ...process.env, PERF_TWEAKS: value },
    stdio: "inherit",
  });

/**
 * Bytes and Lighthouse runs of `/` with the switch off; the build's compile hint is put back afterwards, whatever
 * happens. @param {Record<string, string>} supabase the same Supabase settings as the first pass
 */
export async function measureWithPerfOff(supabase) {
  compileHints("off");
  try {
    const app = await startProductionServer({ ...supabase, PERF_TWEAKS: "off" });
    try {
      for (let i = 0; i < 5; i++) await answers(`${app.url}/`);
      const bytes = await measureBytes(app.url);
      const runs = await lighthouseRuns(`${app.url}/`, {
        throttling: "simulate",
        label: "perf-off",
        runs: LIGHTHOUSE_RUNS,
      });
      return {
        bytes,
        lighthouse: { conditions: [{ name: "quiet, PERF_TWEAKS=off", sets: [{ network: "loopback", ...runs }] }] },
      };
    } finally {
      await stopProcess(app.child);
    }
  } finally {
    compileHints("on");
  }
}
