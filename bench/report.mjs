// What the benchmark prints and gates on: the goals table, and one line per Lighthouse run.
import { spawnSync } from "node:child_process";
import { root } from "./options.mjs";

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? /** @type {number} */ (sorted[middle])
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function gitCommit() {
  const result = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : "unknown";
}

/** @param {number} bytes */
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
/** @param {boolean} ok */
const mark = (ok) => (ok ? "✓" : "✗");

/** @param {any} l */
const summary = (l) =>
  `performance ${l.performance} · FCP ${l.fcpMs} ms · LCP ${l.lcpMs} ms · TBT ${l.tbtMs} ms · CLS ${l.cls}`;
/** The page-speed goals, for one run or for the worst of several. @param {any} l */
const meetsGoals = (l) => l.performance === 100 && l.fcpMs <= 1200 && l.lcpMs <= 1200 && l.tbtMs <= 50 && l.cls === 0;

/** @param {string[]} header @param {unknown[][]} rows */
function markdownTable(header, rows) {
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** The columns both run tables share after the columns that say what was loaded. */
const RUN_HEADER = ["run", "load avg", "performance", "FCP", "LCP", "TBT", "CLS", ""];
/** One Lighthouse run as those columns, marked against the goals. @param {any} run */
const runCells = (run) => [
  run.run,
  run.loadAverage.toFixed(2),
  run.performance,
  `${run.fcpMs} ms`,
  `${run.lcpMs} ms`,
  `${run.tbtMs} ms`,
  run.cls,
  mark(meetsGoals(run)),
];

/** Every Lighthouse run with simulated throttling, one row each (the per-run table of bench/README.md). @param {any} r */
export function runsTable(r) {
  const rows = r.lighthouse.conditions.flatMap((/** @type {any} */ condition) =>
    condition.sets.flatMap((/** @type {any} */ set) =>
      set.runs.map((/** @type {any} */ run) => [condition.name, set.network, ...runCells(run)]),
    ),
  );
  return markdownTable(["machine", "network", ...RUN_HEADER], rows);
}

/** Every run of the reference pages (bench/reference-pages.mjs), one row each; marked against the goals. @param {any} r */
export function referenceTable(r) {
  const rows = r.lighthouse.references.flatMap((/** @type {any} */ set) =>
    set.runs.map((/** @type {any} */ run) => [set.page, ...runCells(run)]),
  );
  return markdownTable(["page", ...RUN_HEADER], rows);
}

/** The goals table, and the goals missed (which fail the run). @param {any} r */
export function goalsTable(r) {
  const sets = r.lighthouse.conditions.flatMap((/** @type {any} */ c) =>
    c.sets.map((/** @type {any} */ set) => ({ ...set, condition: c.name })),
  );
  /** @param {"accessibility" | "bestPractices" | "seo"} key */
  const lowest = (key) => Math.min(...sets.map((/** @type {any} */ set) => set.worst[key]));
  const runsEach = sets[0]?.runs.length ?? 0;
  /** @type {[string, unknown, string, boolean | null][]} */
  const rows = [
    [
      "Whole-page cache answering `/`",
      `${r.pageCacheActive ? "yes" : "no"} (${r.latestPostFromStub ? "latest post from the stub" : "no Supabase"})`,
      "yes",
      r.pageCacheActive,
    ],
    [
      "HTML `/` (raw / gzip)",
      `${kib(r.bytes.html.raw)} / ${kib(r.bytes.html.gzip)}`,
      "≤ 20 KiB gzip",
      r.bytes.html.gzip <= 20 * 1024,
    ],
    [
      `JS loaded by \`/\` (${r.bytes.js.files} files: React, Remix, routes)`,
      `${kib(r.bytes.js.raw)} / ${kib(r.bytes.js.gzip)}`,
      "≤ 100 KiB gzip",
      r.bytes.js.gzip <= 100 * 1024,
    ],
    [
      `CSS (${[r.bytes.css.files ? `${r.bytes.css.files} file` : "", r.bytes.inlineCss.raw ? "inline" : ""].filter(Boolean).join(" + ")})`,
      `${kib(r.bytes.css.raw + r.bytes.inlineCss.raw)} / ${kib(r.bytes.css.gzip + r.bytes.inlineCss.gzip)}`,
      "≤ 12 KiB gzip",
      r.bytes.css.gzip + r.bytes.inlineCss.gzip <= 12 * 1024,
    ],
    ...sets.map(
      (/** @type {any} */ set) =>
        /** @type {[string, unknown, string, boolean | null]} */ ([
          `Lighthouse, simulated throttling, ${set.condition}, ${set.network}: worst of ${set.runs.length} runs`,
          summary(set.worst),
          "every run: 100 · FCP, LCP ≤ 1200 ms · TBT ≤ 50 ms · CLS 0",
          meetsGoals(set.worst),
        ]),
    ),
    [
      `Lighthouse accessibility (lowest of ${sets.length} × ${runsEach} runs)`,
      lowest("accessibility"),
      "100",
      lowest("accessibility") === 100,
    ],
    ["Lighthouse best practices (lowest)", lowest("bestPractices"), "100", lowest("bestPractices") === 100],
    ["Lighthouse SEO (lowest)", lowest("seo"), "100", lowest("seo") === 100],
  ];
  if (r.lighthouse.applied) {
    const applied = r.lighthouse.applied;
    rows.push([
      `Applied (devtools) throttling, quiet, for comparison (worst of ${applied.runs.length})`,
      summary(applied.worst),
      "",
      null,
    ]);
  }
  if (r.throughput) {
    const t = r.throughput;
    const hang = r.edgeFunctionHangs;
    rows.push(
      [
        `Throughput GET / (ours, ${t.connections} conn.)`,
        `${t.ours.requestsPerSecond.toLocaleString("en")} req/s · p50 ${t.ours.p50Ms} ms · p99 ${t.ours.p99Ms} ms`,
        "",
        null,
      ],
      [
        "Throughput, same HTML from nginx (1 worker)",
        `${t.static.requestsPerSecond.toLocaleString("en")} req/s · p50 ${t.static.p50Ms} ms · p99 ${t.static.p99Ms} ms`,
        "",
        null,
      ],
      ["Ratio ours / static", `${(t.ratio * 100).toFixed(1)} %`, "≥ 10 %", t.ratio >= 0.1],
      [
        "Throughput GET /?bench=1 (rendered every time)",
        `${t.renderedEveryTime.requestsPerSecond.toLocaleString("en")} req/s · p50 ${t.renderedEveryTime.p50Ms} ms · p99 ${t.renderedEveryTime.p99Ms} ms`,
        "",
        null,
      ],
      hang.functionCalls === 0
        ? [
            `Page time while the edge function hangs`,
            `${hang.medianMs} ms: not measured, the app made no call`,
            "",
            null,
          ]
        : [
            `Page time while the edge function hangs (median of ${hang.runs})`,
            `${hang.medianMs} ms (${hang.functionCalls} calls)`,
            `≈ time box (${hang.latestPostTimeoutMs} ms)`,
            hang.statuses.every((/** @type {number} */ s) => s === 200) &&
              hang.medianMs <= hang.latestPostTimeoutMs + 500,
          ],
      ["Server RSS after the throughput run", `${r.serverRssMiBAfterThroughput} MiB`, "", null],
      ["Server RSS after the rendered run", `${r.serverRssMiBAfterRenderedRun} MiB`, "", null],
      [
        "Social card `/card.png`: first request after start (renders it)",
        `${r.socialCard.coldMs} ms · ${kib(r.socialCard.bytes)}`,
        "< 200 KiB",
        r.socialCard.bytes < 200 * 1024,
      ],
      [
        `Social card from memory (median of 20 · ${t.connections} conn.)`,
        `${r.socialCard.cachedMedianMs} ms · ${r.socialCard.cachedThroughput.requestsPerSecond.toLocaleString("en")} req/s · p99 ${r.socialCard.cachedThroughput.p99Ms} ms`,
        "",
        null,
      ],
    );
  }
  const missed = rows.filter(([, , , ok]) => ok === false).map(([name]) => name);
  const markdown = markdownTable(
    ["measure", "result", "goal", ""],
    rows.map(([name, value, goal, ok]) => [name, value, goal, ok === null ? "" : mark(Boolean(ok))]),
  );
  return { markdown, missed };
}
