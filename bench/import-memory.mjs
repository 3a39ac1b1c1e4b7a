// The import benchmark: what a long export costs the owner's machine. The owner's own command,
// `npm run subscribers -- import <file>` (its script's Node flags, read from package.json), on a 200,000-row Substack
// export in the current layout: a dry run, then the real write into a fresh DATA_DIR; and the same command on a
// one-row file, which is what the command costs before any row. Each run's peak resident memory (the child's own
// process.resourceUsage().maxRSS, written as it exits by bench/max-rss.mjs) and wall time. Goal: every peak under
// 200 MB. Part of `npm run bench`; alone: `node bench/import-memory.mjs` (after `npm run build`, or without
// BENCH_SKIP_BUILD); BENCH_IMPORT_ROWS sets the size.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { root, SKIP_BUILD } from "./options.mjs";
import { productionEnv } from "../tests/support/server-process.mjs";
import { adopt, removeOnExit, tempDir } from "./processes.mjs";

export const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 200_000);
/** The goal for every run's peak: 200 MB (decimal, as the owner's machine is sold), in MiB. */
const GOAL_MIB = 200e6 / 2 ** 20;
const MiB = 2 ** 20;

/** A current-layout Substack export: one free reader in ten paid, one in 97 with mail turned off (never the first, so a one-row file needs no --yes). */
function substackExport(/** @type {number} */ rows) {
  const lines = ["email,active_subscription,expiry,plan,email_disabled,created_at,first_payment_at"];
  for (let i = 0; i < rows; i += 1) {
    const paid = i % 10 === 0;
    const plan = paid ? "2027-01-01T00:00:00.000Z,monthly" : ",";
    const payment = paid ? "2021-03-04T10:15:00.000Z" : "";
    lines.push(`reader${i}@example${i % 50}.com,${paid},${plan},${i % 97 === 96},2021-03-04T10:15:00.000Z,${payment}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The rows of `rows` whose mail is off: stored suppressed. @param {number} rows */
const suppressedOf = (rows) => Math.floor(rows / 97);

/** The Node flags `npm run subscribers` runs with: the measure holds for the command as the owner runs it. */
function commandFlags() {
  const { scripts } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const words = String(scripts.subscribers).split(/\s+/);
  if (words[0] !== "node")
    throw new Error(`package.json's subscribers script is not \`node …\`: ${scripts.subscribers}`);
  return words.slice(1).filter((word) => word.startsWith("--"));
}

/**
 * The command on `file`, its peak RSS (MiB) and wall time (s). The peak is the child's own, read by a module loaded
 * before the command (bench/max-rss.mjs) when the process exits; a wrapper's memory would not count.
 * @param {string} name @param {string} file @param {string[]} flags
 */
async function run(name, file, flags) {
  const dir = removeOnExit(tempDir("portfolio-bench-import-"));
  const dataDir = path.join(dir, "data");
  const rssFile = path.join(dir, "max-rss");
  const args = [
    ...commandFlags(),
    "--import",
    pathToFileURL(path.join(root, "bench", "max-rss.mjs")).href,
    "scripts/subscribers.mjs",
    "import",
    file,
    ...flags,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: /** @type {NodeJS.ProcessEnv} */ (productionEnv({ DATA_DIR: dataDir, BENCH_MAX_RSS_FILE: rssFile })),
    stdio: ["ignore", "ignore", "pipe"],
  });
  adopt(child);
  let report = "";
  child.stderr.setEncoding("utf8").on("data", (text) => (report += text));
  const code = await new Promise((resolve) => child.on("exit", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${name}: the command exited ${code}:\n${report}`);
  const peakMiB = Number(readFileSync(rssFile, "utf8")) / 1024;
  return { name, peakMiB: Math.round(peakMiB * 10) / 10, seconds: Math.round(seconds * 10) / 10, report, dataDir };
}

/** How many readers the write stored, and how many of them suppressed. @param {string} dataDir */
function stored(dataDir) {
  const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"), { readOnly: true });
  try {
    const count = (/** @type {string} */ where) =>
      /** @type {{ n: number }} */ (db.prepare(`select count(*) as n from newsletter_subscribers ${where}`).get()).n;
    return { readers: count(""), suppressed: count("where suppressed_reason is not null") };
  } finally {
    db.close();
  }
}

export async function measureImportMemory() {
  const files = removeOnExit(tempDir("portfolio-bench-import-files-"));
  const long = path.join(files, "email_list.bench.csv");
  const one = path.join(files, "email_list.one.csv");
  writeFileSync(long, substackExport(IMPORT_ROWS));
  writeFileSync(one, substackExport(1));
  const baseline = await run("one row, written", one, []);
  const dryRun = await run(`${IMPORT_ROWS} rows, dry run`, long, ["--dry-run"]);
  if (!dryRun.report.includes(`${IMPORT_ROWS - suppressedOf(IMPORT_ROWS)} readers would be added`)) {
    throw new Error(`the dry run's report is not the file's:\n${dryRun.report}`);
  }
  const write = await run(`${IMPORT_ROWS} rows, written`, long, []);
  const kept = stored(write.dataDir);
  const strip = (/** @type {Awaited<ReturnType<typeof run>>} */ r) => ({
    name: r.name,
    peakMiB: r.peakMiB,
    seconds: r.seconds,
  });
  return {
    rows: IMPORT_ROWS,
    fileMiB: Math.round((Buffer.byteLength(readFileSync(long)) / MiB) * 10) / 10,
    runs: [strip(baseline), strip(dryRun), strip(write)],
    stored: kept,
    expected: { readers: IMPORT_ROWS, suppressed: suppressedOf(IMPORT_ROWS) },
  };
}

/** The goals: [label, value, goal, met]. @param {Awaited<ReturnType<typeof measureImportMemory>>} m */
export function importMemoryGoals(m) {
  const peaks = m.runs.map((r) => [`Import peak RSS, ${r.name} (MiB; ${r.seconds} s)`, r.peakMiB, "< 190.7 (200 MB)"]);
  return [
    ...peaks.map(([label, value, goal]) => [label, value, goal, Number(value) < GOAL_MIB]),
    [
      "Readers stored / suppressed",
      `${m.stored.readers} / ${m.stored.suppressed}`,
      `${m.expected.readers} / ${m.expected.suppressed}`,
      m.stored.readers === m.expected.readers && m.stored.suppressed === m.expected.suppressed,
    ],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    if (!SKIP_BUILD && spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" }).status !== 0) {
      throw new Error("build failed");
    }
    console.log(`import benchmark: a ${IMPORT_ROWS}-row Substack export through npm run subscribers -- import`);
    const results = await measureImportMemory();
    console.log(JSON.stringify(results, null, 2));
    for (const [label, value, goal, met] of importMemoryGoals(results))
      console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    if (importMemoryGoals(results).some(([, , , met]) => !met)) process.exitCode = 1;
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  }
  process.exit();
}
