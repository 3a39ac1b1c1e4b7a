import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { freePort, productionEnv } from "./tests/support/server-process.mjs";
import { FAKE_ANON_KEY } from "./tests/support/stub-supabase/stub";

/** What one project's tests talk to: its own servers and stub, so the two projects can run side by side. */
export interface StandIns {
  /** The production server with the embedded store (what `npm start` gives a fresh machine); its DATA_DIR. */
  app: string;
  dataDir: string;
  /** The stub Supabase, scripted by tests through its /__stub/ API, and its anon key. */
  stub: string;
  stubAnonKey: string;
  /** The same app configured with the stub, where every view asks the stub; its DATA_DIR. */
  supabaseApp: string;
  supabaseDataDir: string;
}

const PROJECTS = ["js-on", "js-off"] as const;
/** Specs that run with JavaScript only, each against a production server it starts itself. */
const ON_OWN_SERVERS = ["takeover-typing.spec.ts"];

async function newStandIns(project: string): Promise<StandIns> {
  return {
    app: `http://127.0.0.1:${await freePort()}`,
    dataDir: mkdtempSync(path.join(tmpdir(), `portfolio-e2e-${project}-`)),
    stub: `http://127.0.0.1:${await freePort()}`,
    stubAnonKey: FAKE_ANON_KEY,
    supabaseApp: `http://127.0.0.1:${await freePort()}`,
    supabaseDataDir: mkdtempSync(path.join(tmpdir(), `portfolio-e2e-${project}-supabase-`)),
  };
}

// Workers load this file too: the ports and data directories are chosen once, in the main process, and inherited.
// Playwright starts the servers on them (webServer, below) and stops them after the run.
process.env.E2E_STAND_INS ??= JSON.stringify(
  Object.fromEntries(await Promise.all(PROJECTS.map(async (name) => [name, await newStandIns(name)]))),
);
const standIns = JSON.parse(process.env.E2E_STAND_INS) as Record<(typeof PROJECTS)[number], StandIns>;

const port = (url: string) => new URL(url).port;

/** The production server (`node server/index.mjs` on the last build) on `url`, ready once /healthz answers. */
function appServer(url: string, env: Record<string, string>) {
  return {
    command: "node server/index.mjs",
    url: `${url}/healthz`,
    env: productionEnv({ PORT: port(url), ...env }),
    // A clean stop closes the embedded database, as in production.
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    timeout: 60_000,
  };
}

/**
 * A project's servers: the stub Supabase; the production server with the embedded store; the same app configured
 * with the stub, each view asking it (cache off), so each test's scripted answer is what the page shows. The
 * environment is productionEnv's (tests/support/server-process.mjs): every variable the app reads set explicitly.
 */
function serversOf(own: StandIns) {
  return [
    {
      command: "node tests/support/stub-supabase/main.ts",
      url: `${own.stub}/__stub/state`,
      // The pages' tests script the edge function alone: no database to start behind the stand-in.
      env: { STUB_PORT: port(own.stub), STUB_ANON_KEY: own.stubAnonKey, STUB_DATABASE: "off" },
      gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    },
    appServer(own.app, { DATA_DIR: own.dataDir }),
    appServer(own.supabaseApp, {
      DATA_DIR: own.supabaseDataDir,
      SUPABASE_URL: own.stub,
      SUPABASE_ANON_KEY: own.stubAnonKey,
      LATEST_POST_TTL_SECONDS: "0",
      LATEST_POST_FAILURE_TTL_SECONDS: "0",
    }),
  ];
}

const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  },
};

export default defineConfig({
  testDir: "tests/e2e",
  // Two workers, one at most per project: js-on and js-off each have their own servers and stub (their tests script
  // the stub's answers in turn), so they run side by side while a project's tests run one at a time; the third
  // project's specs start their own servers, and it runs on whichever worker is free first.
  workers: 2,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  reporter: "list",
  // A failed test keeps its trace (actions, DOM snapshots, network, console), without the screencast: recording frames
  // for every test, passing ones included, made the specs about a tenth slower on two cores.
  use: { trace: { mode: "retain-on-failure", screenshots: false } },
  projects: [
    ...PROJECTS.map((name) => ({
      name,
      workers: 1,
      metadata: standIns[name],
      testIgnore: name === "js-on" ? ON_OWN_SERVERS : undefined,
      use: { ...chromium, javaScriptEnabled: name === "js-on", baseURL: standIns[name].app },
    })),
    // JavaScript-only specs that start servers of their own and touch no stand-in, as a project of their own: the
    // js-on project has about a minute more to run than js-off, and a worker that is free takes these.
    {
      name: "js-on-own-servers",
      workers: 1,
      testMatch: ON_OWN_SERVERS,
      use: { ...chromium, javaScriptEnabled: true },
    },
  ],
  webServer: PROJECTS.flatMap((name) => serversOf(standIns[name])),
});
