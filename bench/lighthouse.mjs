// Lighthouse: the CLI with Debian's Chromium, mobile settings, each run in a fresh browser. Every run is kept: the
// goals hold for the worst one (a single good run promises nothing about the next).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { CHROME_FLAGS, CHROMIUM, outDir, root } from "./options.mjs";

/**
 * @typedef {{
 *   run: number, loadAverage: number, performance: number, accessibility: number, bestPractices: number, seo: number,
 *   fcpMs: number, lcpMs: number, tbtMs: number, cls: number, failing: string[],
 * }} LighthouseRun
 */

/**
 * One run. Lighthouse writes its report, and its trace and DevTools log beside it (bench/out), for a closer look.
 * @param {string} url @param {"devtools" | "simulate"} throttling @param {string} label @param {number} run
 * @returns {Promise<LighthouseRun>}
 */
async function runLighthouse(url, throttling, label, run) {
  const output = path.join(outDir, `lighthouse-${label}-${run}.json`);
  const cli = path.join(root, "node_modules", "lighthouse", "cli", "index.js");
  // The 1-minute load average as the run starts: how busy the machine was (it has os.cpus().length cores).
  const loadAverage = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
  // Asynchronous: the reference pages are served from this very process while Lighthouse loads them.
  await promisify(execFile)(
    process.execPath,
    [
      cli,
      url,
      `--chrome-flags=${CHROME_FLAGS}`,
      `--throttling-method=${throttling}`,
      "--output=json",
      `--output-path=${output}`,
      "--save-assets",
      "--quiet",
    ],
    { cwd: root, env: { ...process.env, CHROME_PATH: CHROMIUM }, encoding: "utf8", timeout: 180_000 },
  ).catch((/** @type {{ code?: unknown, stderr?: string }} */ error) => {
    throw new Error(`lighthouse failed (${String(error.code)}):\n${error.stderr ?? error}`);
  });
  const report = JSON.parse(readFileSync(output, "utf8"));
  /** @param {string} id */
  const category = (id) => Math.round((report.categories[id]?.score ?? 0) * 100);
  /** @param {string} id */
  const metric = (id) => /** @type {number} */ (report.audits[id]?.numericValue ?? NaN);
  return {
    run,
    loadAverage,
    performance: category("performance"),
    accessibility: category("accessibility"),
    bestPractices: category("best-practices"),
    seo: category("seo"),
    fcpMs: Math.round(metric("first-contentful-paint")),
    lcpMs: Math.round(metric("largest-contentful-paint")),
    tbtMs: Math.round(metric("total-blocking-time")),
    cls: Number(metric("cumulative-layout-shift").toFixed(3)),
    // Audits that lost points, so a miss says where to look.
    failing: Object.entries(report.audits)
      .filter(
        ([, audit]) =>
          typeof audit.score === "number" && audit.score < 1 && ["binary", "numeric"].includes(audit.scoreDisplayMode),
      )
      .map(([id]) => id),
  };
}

/**
 * `runs` runs, each printed as it ends, and the worst of each figure over them.
 * @param {string} url @param {{ throttling: "devtools" | "simulate", label: string, runs: number }} options
 */
export async function lighthouseRuns(url, { throttling, label, runs }) {
  /** @type {LighthouseRun[]} */
  const all = [];
  for (let run = 1; run <= runs; run++) {
    const result = await withRetries(() => runLighthouse(url, throttling, label, run));
    all.push(result);
    console.log(`  ${label} ${run}/${runs}: ${runLine(result)}`);
  }
  return { throttling, runs: all, worst: worstOf(all) };
}

/**
 * Lighthouse itself sometimes fails on a very busy machine (NO_NAVSTART: Chromium's trace lost the navigation). That
 * is no measure of the page: such a run is started again, up to twice, and says so.
 * @param {() => Promise<LighthouseRun>} attempt
 */
async function withRetries(attempt) {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries === 3) throw error;
      console.log(
        `  (Lighthouse failed, run again: ${
          String(error)
            .split("\n")
            .find((line) => /error/i.test(line)) ?? ""
        })`,
      );
    }
  }
}

/** @param {LighthouseRun} r */
export const runLine = (r) =>
  `load ${r.loadAverage.toFixed(2)} · performance ${r.performance} · FCP ${r.fcpMs} ms · LCP ${r.lcpMs} ms · ` +
  `TBT ${r.tbtMs} ms · CLS ${r.cls}`;

/** The lowest score and the highest time of each figure, over every run. @param {LighthouseRun[]} runs */
function worstOf(runs) {
  /** @param {(run: LighthouseRun) => number} pick */
  const lowest = (pick) => Math.min(...runs.map(pick));
  /** @param {(run: LighthouseRun) => number} pick */
  const highest = (pick) => Math.max(...runs.map(pick));
  return {
    performance: lowest((r) => r.performance),
    accessibility: lowest((r) => r.accessibility),
    bestPractices: lowest((r) => r.bestPractices),
    seo: lowest((r) => r.seo),
    fcpMs: highest((r) => r.fcpMs),
    lcpMs: highest((r) => r.lcpMs),
    tbtMs: highest((r) => r.tbtMs),
    cls: highest((r) => r.cls),
    failingAudits: [...new Set(runs.flatMap((r) => r.failing))],
  };
}
