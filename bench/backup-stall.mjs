// `node bench/backup-stall.mjs` (after `npm run build`): how long a backup of the embedded store holds up the event
// loop, the number decision 011 quotes. For each list size it measures, on the same file, the copy as it was made
// before (VACUUM INTO, then a count in the copy, all on the loop) and the store's backup as the server makes it now
// (SQLite's online backup in steps on the thread pool), while a sign-up is attempted every millisecond through the
// store. Prints a table; not part of `npm test` or `npm run bench`.
//
// Options (environment): BENCH_BACKUP_ROWS (10000,100000), BENCH_BACKUP_RUNS (3).
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SIZES = (process.env.BENCH_BACKUP_ROWS ?? "10000,100000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_BACKUP_RUNS ?? 3);
if (!SIZES.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(RUNS) || RUNS < 1) {
  throw new Error("BENCH_BACKUP_ROWS must be positive integers, BENCH_BACKUP_RUNS a positive integer");
}

const dataDir = mkdtempSync(path.join(tmpdir(), "backup-stall-"));
Object.assign(process.env, {
  NODE_ENV: "production",
  SESSION_SECRET: randomBytes(32).toString("hex"),
  DATA_DIR: dataDir,
  SUPABASE_URL: "",
  SUPABASE_ANON_KEY: "",
});
const { subscriberAdmin, onShutdown } = await import(pathToFileURL(path.join(root, "build", "index.js")).href);
/** @type {import("../app/newsletter/list/sqlite/sqlite-list.server").SqliteList} */
const store = subscriberAdmin.liveList();

/** Fills the list up to `rows` through a connection of its own, in one transaction. @param {number} rows */
function fillTo(rows) {
  const db = new DatabaseSync(store.file);
  const insert = db.prepare("insert into newsletter_subscribers (email, unsubscribe_token) values (?, ?)");
  db.exec("begin");
  for (let i = store.owner.count(); i < rows; i += 1) insert.run(`reader-${i}@example.com`, randomUUID());
  db.exec("commit");
  db.exec("pragma wal_checkpoint(truncate)");
  db.close();
}

/** The copy as the store made it before: VACUUM INTO and a count in the copy, on the loop. @param {string} target */
function vacuumInto(target) {
  const db = new DatabaseSync(store.file);
  try {
    db.prepare("vacuum into ?").run(target);
  } finally {
    db.close();
  }
  const copy = new DatabaseSync(target, { readOnly: true });
  try {
    return /** @type {{ n: number }} */ (copy.prepare("select count(*) as n from newsletter_subscribers").get()).n;
  } finally {
    copy.close();
  }
}

let signUps = 0;
/**
 * Runs `copy` while the loop's delay is recorded and a sign-up is attempted every millisecond.
 * @param {() => Promise<number>} copy
 */
async function measure(copy) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let longestSignUp = 0;
  let attempted = 0;
  const ticker = setInterval(() => {
    const started = performance.now();
    const consent = { page: "/", wording: "bench", version: "bench" };
    void store.signUp(`during-${(signUps += 1)}@example.com`, { state: "confirmed", consent, now: Date.now() });
    longestSignUp = Math.max(longestSignUp, performance.now() - started);
    attempted += 1;
  }, 1);
  delay.enable();
  // The histogram counts from its first sample: let it and the sign-ups start before the copy does.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  await copy();
  const took = performance.now() - started;
  // A stall shows up in the histogram once the loop runs again.
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.disable();
  clearInterval(ticker);
  return { took, stall: delay.max / 1e6, longestSignUp, attempted };
}

/** @param {number[]} values */
const ms = (values) => `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
const results = [];
try {
  for (const rows of SIZES) {
    fillTo(rows);
    const bytes = (await import("node:fs")).statSync(store.file).size;
    /** @type {[string, (target: string) => Promise<number>][]} */
    const copies = [
      ["VACUUM INTO (before)", (target) => Promise.resolve(vacuumInto(target))],
      ["online backup (now)", (target) => store.owner.backup(target)],
    ];
    for (const [label, run] of copies) {
      const runs = [];
      for (let i = 0; i < RUNS; i += 1) {
        const target = path.join(dataDir, `copy-${rows}-${runs.length}-${label.split(" ")[0]}.sqlite`);
        runs.push(await measure(() => run(target)));
        rmSync(target, { force: true });
      }
      results.push({
        rows,
        MB: (bytes / 1e6).toFixed(1),
        copy: label,
        "copy ms": ms(runs.map((r) => r.took)),
        "longest loop stall ms": ms(runs.map((r) => r.stall)),
        "longest sign-up ms": ms(runs.map((r) => r.longestSignUp)),
        "sign-ups during": ms(runs.map((r) => r.attempted)),
      });
    }
  }
  console.table(results);
} finally {
  await onShutdown();
  rmSync(dataDir, { recursive: true, force: true });
}
