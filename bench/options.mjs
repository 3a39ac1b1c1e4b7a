// The benchmark's settings, from the environment (README in this folder lists them).
import path from "node:path";
import { fileURLToPath } from "node:url";

/** @param {string} name @param {number} fallback */
function positive(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** @param {string} name @param {number} fallback */
function nonNegative(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be an integer ≥ 0`);
  return value;
}

export const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const outDir = path.join(root, "bench", "out");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
export const SKIP_BUILD = Boolean(process.env.BENCH_SKIP_BUILD);
/** Lighthouse runs per condition (quiet, one core busy) and per network (loopback, behind the proxy). */
export const LIGHTHOUSE_RUNS = positive("BENCH_LIGHTHOUSE_RUNS", 5);
/** Runs with applied ("devtools") throttling on the quiet machine, printed for comparison, never gated. */
export const APPLIED_RUNS = nonNegative("BENCH_APPLIED_RUNS", 0);
/** Each way, through bench/delay-proxy.mjs; 0 skips the runs behind the proxy. */
export const PROXY_DELAY_MS = nonNegative("BENCH_PROXY_DELAY_MS", 20);
/** 0 skips the runs with one core kept busy. */
export const BUSY_CORE = process.env.BENCH_BUSY_CORE !== "0";
/** 0 skips the reference pages (an empty page, `/` without scripts) measured beside `/`. */
export const REFERENCE_PAGES = process.env.BENCH_REFERENCE_PAGES !== "0";
/** 1 measures Lighthouse only (no throughput, hang, memory or social card sections). */
export const LIGHTHOUSE_ONLY = process.env.BENCH_LIGHTHOUSE_ONLY === "1";
export const DURATION_S = positive("BENCH_DURATION_S", 10);
export const CONNECTIONS = positive("BENCH_CONNECTIONS", 20);
export const HANG_RUNS = positive("BENCH_HANG_RUNS", 5);
/** 0 skips the second pass of `/` with app/perf/ switched off (PERF_TWEAKS=off). */
export const PERF_OFF_PASS = process.env.BENCH_PERF_OFF !== "0";
/** 0 skips the send benchmark (bench/send.mjs: an update to BENCH_SEND_READERS readers through a loopback relay). */
export const SEND_BENCH = process.env.BENCH_SEND !== "0";
/** 0 skips the import benchmark (bench/import-memory.mjs: a long export through `npm run subscribers -- import`). */
export const IMPORT_BENCH = process.env.BENCH_IMPORT !== "0";
/** 0 measures without the stub Supabase, i.e. without a latest post. */
export const WITH_SUPABASE = process.env.BENCH_SUPABASE !== "0";
export const CHROME_FLAGS =
  "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking";
// What a browser sends; both servers then answer with the gzip body (ours precompressed, nginx's gzip_static).
export const ACCEPT_GZIP = { "accept-encoding": "gzip" };
