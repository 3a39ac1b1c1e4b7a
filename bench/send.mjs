// The send benchmark: 10,000 confirmed readers, one update sent by `npm run newsletter -- send` to a loopback SMTP
// sink (bench/send-sink.mjs). Measures the sustained rate with MAIL_RATE_PER_SECOND=0 (goal ≥ 200 mails/s), the
// achieved rate at MAIL_RATE_PER_SECOND=50 (goal within 5 %), the web server's memory before and after, and the
// latency of `/` at a steady 20 requests/s while idle and during the unlimited send (goal: p99 under 2× idle).
// Part of `npm run bench`; alone: `node bench/send.mjs` (after `npm run build`, or without BENCH_SKIP_BUILD).
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { root, SKIP_BUILD } from "./options.mjs";
import { startProductionServer } from "./production-server.mjs";
import { answers, removeOnExit, startProcess, stopProcess, tempDir } from "./processes.mjs";

export const SEND_READERS = Number(process.env.BENCH_SEND_READERS ?? 10_000);
const PACED_RATE = 50;
const PACED_SECONDS = 20;
const PROBE_RATE = 20;
const FROM = "Bench <updates@bench.example>";

/** @param {import("node:child_process").ChildProcess} child */
function rssMiB(child) {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/** The readers, written in one transaction after the store made its schema (as `npm run subscribers` would). */
function seedReaders(/** @type {string} */ dataDir) {
  const env = /** @type {NodeJS.ProcessEnv} */ ({ ...process.env, NODE_ENV: "production", DATA_DIR: dataDir });
  spawnSync(process.execPath, ["scripts/subscribers.mjs", "count"], {
    cwd: root,
    env: { ...env, SESSION_SECRET: "b".repeat(40) },
  });
  const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"));
  const insert = db.prepare("insert into newsletter_subscribers (email, unsubscribe_token) values (?, ?)");
  db.exec("begin");
  for (let n = 0; n < SEND_READERS; n++) insert.run(`reader${n}@bench.example`, crypto.randomUUID());
  db.exec("commit");
  db.close();
}

function writeUpdates(/** @type {string} */ dir) {
  const body = "A week of work: what shipped, what did not, and what comes next.\n\n".repeat(8);
  for (const name of ["2026-11-20-unlimited", "2026-11-21-paced"]) {
    writeFileSync(path.join(dir, `${name}.md`), `---\ntitle: "Bench ${name}"\n---\n\n${body}`);
  }
}

/** `/` at a steady rate, the page cache answering as for any visitor. @param {string} url @param {number} seconds */
async function probe(url, seconds) {
  const result = await autocannon({ url: `${url}/`, connections: 2, overallRate: PROBE_RATE, duration: seconds });
  return {
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
  };
}

/** @param {{ child: import("node:child_process").ChildProcess, output: () => string }} sink */
async function sinkCount(sink) {
  const before = sink.output().length;
  sink.child.stdin?.write("count\n");
  for (let i = 0; i < 100; i++) {
    const line = /count (\d+) ([\d.]+) ([\d.]+)/.exec(sink.output().slice(before));
    if (line) return { count: Number(line[1]), first: Number(line[2]), last: Number(line[3]) };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the SMTP sink did not answer");
}

/**
 * Runs the command (stopped with SIGINT after `stopAfterMs`, when given); resolves with its exit code and output.
 * @param {NodeJS.ProcessEnv} env @param {string[]} args
 * @returns {Promise<{ code: number | null, output: string }>}
 */
function command(env, args, stopAfterMs = 0) {
  const child = spawn(process.execPath, ["scripts/newsletter.mjs", ...args], { cwd: root, env, stdio: "pipe" });
  let output = "";
  child.stdout.on("data", (/** @type {Buffer} */ chunk) => (output += chunk));
  child.stderr.on("data", (/** @type {Buffer} */ chunk) => (output += chunk));
  const timer = stopAfterMs ? setTimeout(() => child.kill("SIGINT"), stopAfterMs) : null;
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

export async function measureSend() {
  const dataDir = removeOnExit(tempDir("portfolio-bench-send-"));
  const updatesDir = removeOnExit(tempDir("portfolio-bench-updates-"));
  writeUpdates(updatesDir);
  seedReaders(dataDir);
  const sink = await startProcess(
    "SMTP sink",
    process.execPath,
    ["bench/send-sink.mjs"],
    { PATH: process.env.PATH },
    (out) => /ready (\d+)/.exec(out)?.[1],
  );
  const mail = { SMTP_URL: `smtp://127.0.0.1:${sink.value}`, MAIL_FROM: FROM, UPDATES_DIR: updatesDir };
  const app = await startProductionServer({ SUPABASE_URL: "", SUPABASE_ANON_KEY: "", DATA_DIR: dataDir, ...mail });
  for (let i = 0; i < 5; i++) await answers(`${app.url}/`);
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, NODE_ENV: "production", DATA_DIR: dataDir, SESSION_SECRET: "b".repeat(40), ...mail };
  try {
    const rssBefore = rssMiB(app.child);
    const idle = await probe(app.url, 8);

    const unlimited = command({ ...env, MAIL_RATE_PER_SECOND: "0" }, ["send", "2026-11-20-unlimited"]);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const during = await probe(app.url, 8);
    const run = await unlimited;
    if (run.code !== 0) throw new Error(`the unlimited send failed:\n${run.output}`);
    const sent = await sinkCount(sink);
    const rssAfter = rssMiB(app.child);
    sink.child.stdin?.write("reset\n");

    const pacedEnv = { ...env, MAIL_RATE_PER_SECOND: String(PACED_RATE) };
    const paced = await command(pacedEnv, ["send", "2026-11-21-paced"], PACED_SECONDS * 1000);
    const pacedSent = await sinkCount(sink);
    if (pacedSent.count < PACED_RATE) throw new Error(`the paced send sent ${pacedSent.count} mails:\n${paced.output}`);
    const round = (/** @type {number} */ n) => Math.round(n * 10) / 10;
    return {
      readers: SEND_READERS,
      unlimited: {
        mails: sent.count,
        seconds: round((sent.last - sent.first) / 1000),
        mailsPerSecond: round((sent.count - 1) / ((sent.last - sent.first) / 1000)),
      },
      paced: {
        setting: PACED_RATE,
        mails: pacedSent.count,
        mailsPerSecond: round((pacedSent.count - 1) / ((pacedSent.last - pacedSent.first) / 1000)),
      },
      serverRssMiB: { before: rssBefore, after: rssAfter },
      homeLatency: { requestsPerSecond: PROBE_RATE, idle, duringSend: during },
    };
  } finally {
    await stopProcess(app.child);
    await stopProcess(sink.child);
  }
}

/** The goals of the send benchmark: [label, value, goal, met]. @param {Awaited<ReturnType<typeof measureSend>>} s */
export function sendGoals(s) {
  const off = Math.abs(s.paced.mailsPerSecond - s.paced.setting) / s.paced.setting;
  const ratio = s.homeLatency.duringSend.p99Ms / Math.max(1, s.homeLatency.idle.p99Ms);
  return [
    ["Send, rate unlimited (mails/s)", s.unlimited.mailsPerSecond, "≥ 200", s.unlimited.mailsPerSecond >= 200],
    [`Send at MAIL_RATE_PER_SECOND=${s.paced.setting} (mails/s)`, s.paced.mailsPerSecond, "within 5 %", off <= 0.05],
    [
      "`/` p99 during the send / idle (ms)",
      `${s.homeLatency.duringSend.p99Ms} / ${s.homeLatency.idle.p99Ms}`,
      "< 2×",
      ratio < 2,
    ],
    ["Server RSS before / after the send (MiB)", `${s.serverRssMiB.before} / ${s.serverRssMiB.after}`, "flat", true],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    if (!SKIP_BUILD && spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" }).status !== 0) {
      throw new Error("build failed");
    }
    console.log(`send benchmark: ${SEND_READERS} readers`);
    const results = await measureSend();
    console.log(JSON.stringify(results, null, 2));
    for (const [label, value, goal, met] of sendGoals(results))
      console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    if (sendGoals(results).some(([, , , met]) => !met)) process.exitCode = 1;
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  }
  process.exit();
}
