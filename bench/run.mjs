// `npm run bench`: builds, starts the production server (with the stub Supabase), and measures what `/` costs: bytes,
// Lighthouse (every run, on a quiet machine and with one core busy, gated on the worst), throughput against nginx
// serving the same HTML, the page time while the edge function hangs, the server's memory, the social card. Prints
// the tables and writes bench/results.json; exits with 1 when a goal is missed. Not part of `npm test`.
// How to read it, and every option: bench/README.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startBusyCore } from "./busy-core.mjs";
import { measureEdgeFunctionHang } from "./edge-hang.mjs";
import { lighthouseRuns } from "./lighthouse.mjs";
import * as options from "./options.mjs";
import { measureBytes } from "./page-bytes.mjs";
import { measureSocialCard, pageCacheActive } from "./page-checks.mjs";
import { measureWithPerfOff } from "./perf-off.mjs";
import { startProductionServer } from "./production-server.mjs";
import { answers, startProcess, stopProcess } from "./processes.mjs";
import { startReferencePages } from "./reference-pages.mjs";
import { gitCommit, goalsTable, referenceTable, runsTable } from "./report.mjs";
import { startSupabaseStub } from "./supabase-stub.mjs";
import { measureThroughput } from "./throughput.mjs";
import { measureSend, SEND_READERS, sendGoals } from "./send.mjs";
import { BACKLOG_ROWS, backlogGoals, measureBacklog } from "./backlog.mjs";
import { IMPORT_ROWS, importMemoryGoals, measureImportMemory } from "./import-memory.mjs";

const { CHROMIUM, NGINX, LIGHTHOUSE_RUNS, PROXY_DELAY_MS, outDir, root } = options;

/** The newest update's page, as the list links it, or null when there is none. @param {string} appUrl */
async function newestUpdatePath(appUrl) {
  const html = await (await fetch(`${appUrl}/updates`)).text();
  return /href="(\/updates\/\d{4}-\d{2}-\d{2}-[a-z0-9-]+)"/.exec(html)?.[1] ?? null;
}

/**
 * Lighthouse on `/`, directly and behind the delay proxy, and on the newest update's page directly, each
 * `LIGHTHOUSE_RUNS` times. @param {string} appUrl
 */
async function lighthouseSets(appUrl) {
  const sets = [
    {
      network: "loopback",
      ...(await lighthouseRuns(`${appUrl}/`, { throttling: "simulate", label: "simulate", runs: LIGHTHOUSE_RUNS })),
    },
  ];
  const update = await newestUpdatePath(appUrl);
  if (update) {
    sets.push({
      network: `loopback, ${update}`,
      ...(await lighthouseRuns(`${appUrl}${update}`, {
        throttling: "simulate",
        label: "simulate-update",
        runs: LIGHTHOUSE_RUNS,
      })),
    });
  }
  if (PROXY_DELAY_MS > 0) {
    const proxy = await startProcess(
      "delay proxy",
      process.execPath,
      ["bench/delay-proxy.mjs", new URL(appUrl).port, String(PROXY_DELAY_MS)],
      { PATH: process.env.PATH },
      (output) => /ready at (\S+)/.exec(output)?.[1],
    );
    const label = `simulate-proxy-${PROXY_DELAY_MS}ms`;
    sets.push({
      network: `proxy, ${PROXY_DELAY_MS} ms each way`,
      ...(await lighthouseRuns(`${proxy.value}/`, { throttling: "simulate", label, runs: LIGHTHOUSE_RUNS })),
    });
    await stopProcess(proxy.child);
  }
  return sets;
}

/**
 * The reference pages (bench/reference-pages.mjs), on the quiet machine and loopback: what the machine allows.
 * @param {string} appUrl
 */
async function lighthouseReferences(appUrl) {
  console.log("  reference pages (not gated):");
  const pages = await startReferencePages(appUrl);
  try {
    return [
      {
        page: "empty page",
        ...(await lighthouseRuns(`${pages.url}/empty`, {
          throttling: "simulate",
          label: "reference-empty",
          runs: LIGHTHOUSE_RUNS,
        })),
      },
      {
        page: "`/` without its scripts",
        ...(await lighthouseRuns(`${pages.url}/without-scripts`, {
          throttling: "simulate",
          label: "reference-without-scripts",
          runs: LIGHTHOUSE_RUNS,
        })),
      },
    ];
  } finally {
    await pages.close();
  }
}

/** Both conditions: a quiet machine, then one core kept busy by a process started and stopped here. @param {string} appUrl */
async function measureLighthouse(appUrl) {
  const conditions = [{ name: "quiet", sets: await lighthouseSets(appUrl) }];
  const references = options.REFERENCE_PAGES ? await lighthouseReferences(appUrl) : [];
  if (options.BUSY_CORE) {
    console.log("  one core busy:");
    const busy = startBusyCore();
    try {
      conditions.push({ name: "one core busy", sets: await lighthouseSets(appUrl) });
    } finally {
      await busy.stop();
    }
  }
  const applied =
    options.APPLIED_RUNS > 0
      ? await lighthouseRuns(`${appUrl}/`, { throttling: "devtools", label: "devtools", runs: options.APPLIED_RUNS })
      : null;
  return { conditions, references, applied };
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);
  if (!options.LIGHTHOUSE_ONLY && !existsSync(NGINX)) {
    throw new Error(`nginx not found at ${NGINX} (Debian: apt-get install nginx-light)`);
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  if (!options.SKIP_BUILD) {
    console.log("building…");
    const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    if (build.status !== 0) throw new Error("build failed");
  }

  const stub = await startSupabaseStub();
  console.log("starting the production server…");
  // An empty value means "not set" to the app.
  const supabase = options.WITH_SUPABASE
    ? { SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey }
    : { SUPABASE_URL: "", SUPABASE_ANON_KEY: "" };
  const app = await startProductionServer(supabase);
  // A few requests settle the latest post and fill the page cache, as on a live server.
  for (let i = 0; i < 5; i++) await answers(`${app.url}/`);
  const cacheActive = await pageCacheActive(app.url);

  console.log("bytes");
  const bytes = await measureBytes(app.url);
  writeFileSync(path.join(outDir, "home.html"), await (await fetch(`${app.url}/`)).text());
  console.log(`lighthouse (${LIGHTHOUSE_RUNS} runs each)`);
  const lighthouse = await measureLighthouse(app.url);

  /** @type {Record<string, unknown>} */
  let serverSections = {};
  if (!options.LIGHTHOUSE_ONLY) {
    console.log("social card");
    const socialCard = await measureSocialCard(app.url);
    console.log(`throughput (${options.CONNECTIONS} connections, ${options.DURATION_S} s each) and memory`);
    const { throughput, rss, rssAfterRendering } = await measureThroughput(app);
    await stopProcess(app.child);
    console.log(`page time while the edge function hangs (${options.HANG_RUNS} requests)`);
    const edgeFunctionHangs = await measureEdgeFunctionHang(stub);
    serverSections = {
      throughput,
      edgeFunctionHangs,
      serverRssMiBAfterThroughput: rss,
      serverRssMiBAfterRenderedRun: rssAfterRendering,
      socialCard,
    };
  }
  await stopProcess(app.child);
  /** @type {any} */
  let perfTweaksOff = null;
  if (options.PERF_OFF_PASS) {
    console.log(`lighthouse with PERF_TWEAKS=off (app/perf/ switched off; ${LIGHTHOUSE_RUNS} runs)`);
    perfTweaksOff = await measureWithPerfOff(supabase);
  }
  await stopProcess(stub.child);

  /** @type {Awaited<ReturnType<typeof measureSend>> | null} */
  let send = null;
  if (!options.LIGHTHOUSE_ONLY && options.SEND_BENCH) {
    console.log(`send: one update to ${SEND_READERS} readers through a loopback relay`);
    send = await measureSend();
  }
  /** @type {Awaited<ReturnType<typeof measureBacklog>> | null} */
  let backlog = null;
  if (!options.LIGHTHOUSE_ONLY && options.SEND_BENCH) {
    console.log(`backlog: the server starting on ${BACKLOG_ROWS} expired confirmation mails`);
    backlog = await measureBacklog();
  }
  /** @type {Awaited<ReturnType<typeof measureImportMemory>> | null} */
  let importMemory = null;
  if (!options.LIGHTHOUSE_ONLY && options.IMPORT_BENCH) {
    console.log(`import: a ${IMPORT_ROWS}-row export through npm run subscribers -- import (dry run, then written)`);
    importMemory = await measureImportMemory();
  }

  const results = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? "unknown",
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      chromium: spawnSync(CHROMIUM, ["--version"], { encoding: "utf8" }).stdout.trim(),
    },
    latestPostFromStub: options.WITH_SUPABASE,
    pageCacheActive: cacheActive,
    bytes,
    lighthouse,
    ...serverSections,
    perfTweaksOff,
    ...(send ? { send } : {}),
    ...(backlog ? { backlog } : {}),
    ...(importMemory ? { importMemory } : {}),
  };
  writeFileSync(path.join(root, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");
  const { markdown, missed } = goalsTable(results);
  console.log(`\n${markdown}\n\nEvery Lighthouse run (simulated throttling):\n\n${runsTable(results)}`);
  if (lighthouse.references.length) {
    console.log(`\nReference pages, quiet, loopback (not gated):\n\n${referenceTable(results)}`);
  }
  if (perfTweaksOff) {
    const { js } = perfTweaksOff.bytes;
    console.log(
      `\nThe same page with PERF_TWEAKS=off (not gated; JS ${js.files} files):\n\n${runsTable(perfTweaksOff)}`,
    );
  }
  if (send) {
    const rows = sendGoals(send);
    console.log(`\nThe send (${send.readers} readers):\n`);
    for (const [label, value, goal, met] of rows) console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    for (const [label, , , met] of rows) if (!met) missed.push(String(label));
  }
  if (backlog) {
    const rows = backlogGoals(backlog);
    console.log(`\nThe backlog (${backlog.rows} expired rows):\n`);
    for (const [label, value, goal, met] of rows) console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    for (const [label, , , met] of rows) if (!met) missed.push(String(label));
  }
  if (importMemory) {
    const rows = importMemoryGoals(importMemory);
    console.log(`\nThe import (${importMemory.rows} rows, ${importMemory.fileMiB} MiB):\n`);
    for (const [label, value, goal, met] of rows) console.log(`${met ? "✓" : "✗"} ${label}: ${value} (goal ${goal})`);
    for (const [label, , , met] of rows) if (!met) missed.push(String(label));
  }
  console.log("\nWritten to bench/results.json");
  if (missed.length) {
    console.error(`\nGoals missed: ${missed.join("; ")}`);
    process.exitCode = 1;
  }
}

await main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
// After an error the processes it started would keep Node alive: exiting runs the clean-up that stops them.
process.exit();
