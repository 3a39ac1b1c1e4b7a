// The backlog benchmark: the outbox holds 50,000 queued confirmation mails whose sign-ups expired a day ago (a flood
// held back by the hourly cap, then a week without a restart), the production server starts on it, and `/healthz` is
// asked every 10 ms from the moment it listens until 10 s later. Goal: every answer within 100 ms (after the
// process's very first, which loads the routes and is reported apart), and the backlog gone (skipped as expired) without one mail sent. Part of `npm run bench`; alone:
// `node bench/backlog.mjs` (after `npm run build`, or without BENCH_SKIP_BUILD); BENCH_BACKLOG_ROWS sets the size.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { root, SKIP_BUILD } from "./options.mjs";
import { startServer } from "../tests/support/server-process.mjs";
import { adopt, removeOnExit, startProcess, stopProcess, tempDir } from "./processes.mjs";

export const BACKLOG_ROWS = Number(process.env.BENCH_BACKLOG_ROWS ?? 50_000);
const AFTER_LISTEN_MS = 10_000;
const DAY_MS = 24 * 60 * 60_000;

/**
 * The rows as the sign-up queued them 8 days ago, in one transaction, into a table of the outbox's shape (the server
 * adds its indexes when it opens the file, as it does for any file an older version made).
 */
function seedBacklog(/** @type {string} */ dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"));
  db.exec(`create table mail_outbox (
    id integer primary key, kind text not null check (kind in ('confirm', 'update', 'welcome')),
    recipient text not null, ref text, payload text not null default '{}',
    state text not null default 'queued'
      check (state in ('queued', 'sending', 'sent', 'failed', 'skipped', 'uncertain')),
    attempts integer not null default 0, next_attempt_at integer not null, last_error text,
    created_at integer not null, updated_at integer not null, sent_at integer, claimed_by text, lease_until integer,
    claim_key integer)`);
  const queuedAt = Date.now() - 8 * DAY_MS;
  const insert = db.prepare(
    "insert into mail_outbox (kind, recipient, payload, next_attempt_at, created_at, updated_at, claim_key) " +
      "values ('confirm', ?, ?, ?, ?, ?, ?)",
  );
  db.exec("begin");
  for (let n = 0; n < BACKLOG_ROWS; n++) {
    const at = queuedAt + n;
    const payload = JSON.stringify({ mailbox: `flood${n}@bench.example`, visitor: `v${n % 500}`, network: "n" });
    insert.run(`flood${n}@bench.example`, payload, at, at, at, at);
  }
  db.exec("commit");
  db.close();
}

/** Asks `/healthz` every 10 ms until `stop()`; each answer's time, or the time a refused connection took. */
function healthProbe(/** @type {() => string | null} */ base) {
  /** @type {{ at: number, ms: number, ok: boolean }[]} */
  const samples = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const url = base();
      const started = performance.now();
      if (url) {
        const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) }).then(
          async (response) => (await response.arrayBuffer(), response.ok),
          () => false,
        );
        samples.push({ at: started, ms: performance.now() - started, ok });
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
    },
  };
}

export async function measureBacklog() {
  const dataDir = removeOnExit(tempDir("portfolio-bench-backlog-"));
  seedBacklog(dataDir);
  const sink = await startProcess(
    "SMTP sink",
    process.execPath,
    ["bench/send-sink.mjs"],
    { PATH: process.env.PATH },
    (out) => /ready (\d+)/.exec(out)?.[1],
  );
  /** @type {string | null} */
  let url = null;
  const probe = healthProbe(() => url);
  const spawnedAt = performance.now();
  const app = await startServer({
    env: {
      SUPABASE_URL: "",
      SUPABASE_ANON_KEY: "",
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${sink.value}`,
      MAIL_FROM: "Bench <updates@bench.example>",
    },
  });
  adopt(app.child);
  url = app.url;
  const listenedAt = performance.now();
  try {
    await new Promise((resolve) => setTimeout(resolve, AFTER_LISTEN_MS));
    await probe.stop();
    const db = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"), { readOnly: true });
    const left = /** @type {{ n: number }} */ (
      db.prepare("select count(*) as n from mail_outbox where state in ('queued', 'sending')").get()
    ).n;
    db.close();
    sink.child.stdin?.write("count\n");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = Number(/count (\d+)/.exec(sink.output())?.[1] ?? NaN);
    // The first answer is the process's first request of all (modules and routes loaded on first use), with or
    // without a backlog: reported apart, and the goal is on every answer after it.
    const [first, ...warm] = probe.samples;
    const times = warm.map((sample) => sample.ms).sort((a, b) => a - b);
    const round = (/** @type {number} */ n) => Math.round(n * 10) / 10;
    return {
      rows: BACKLOG_ROWS,
      listenMs: round(listenedAt - spawnedAt),
      healthz: {
        firstMs: round(first?.ms ?? NaN),
        answers: times.length,
        failed: probe.samples.filter((sample) => !sample.ok).length,
        p50Ms: round(times[Math.floor(times.length / 2)] ?? NaN),
        p99Ms: round(times[Math.floor(times.length * 0.99)] ?? NaN),
        maxMs: round(times[times.length - 1] ?? NaN),
      },
      leftQueued: left,
      mailsSent: sent,
    };
  } finally {
    await probe.stop();
    await stopProcess(app.child);
    await stopProcess(sink.child);
  }
}

/** The goals: [label, value, goal, met]. @param {Awaited<ReturnType<typeof measureBacklog>>} b */
export function backlogGoals(b) {
  return [
    [`/healthz max with ${b.rows} expired rows (ms)`, b.healthz.maxMs, "< 100", b.healthz.maxMs < 100],
    ["/healthz answers that failed", b.healthz.failed, "0", b.healthz.failed === 0],
    ["Expired rows still queued after 10 s / mails sent", `${b.leftQueued} / ${b.mailsSent}`, "0 / 0", !b.leftQueued],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    if (!SKIP_BUILD && spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" }).status !== 0) {
      throw new Error("build failed");
    }
    console.log(`backlog benchmark: ${BACKLOG_ROWS} expired confirmation mails in the outbox`);
    const results = await measureBacklog();
    console.log(JSON.stringify(results, null, 2));
    for (const [label, value, goal, met] of backlogGoals(results))
      console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    if (backlogGoals(results).some(([, , , met]) => !met)) process.exitCode = 1;
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  }
  process.exit();
}
