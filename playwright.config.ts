import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { freePort, productionEnv } from "./tests/support/server-process.mjs";
import { FAKE_ANON_KEY } from "./tests/support/stub-supabase/stub";

// Workers load this file too: the ports and data directories are chosen once, in the main process, and inherited.
// Playwright starts the servers on them (webServer, below) and stops them after the run.
process.env.E2E_PORT ??= String(await freePort());
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "portfolio-e2e-"));
// A second app server configured with Supabase (the stub, scripted by tests through its /__stub/ API):
// E2E_STUB_URL is the stub, E2E_SUPABASE_URL the app server that calls it.
process.env.E2E_STUB_PORT ??= String(await freePort());
process.env.E2E_SUPABASE_PORT ??= String(await freePort());
process.env.E2E_SUPABASE_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "portfolio-e2e-supabase-"));
process.env.E2E_STUB_URL ??= `http://127.0.0.1:${process.env.E2E_STUB_PORT}`;
process.env.E2E_STUB_ANON_KEY ??= FAKE_ANON_KEY;
process.env.E2E_SUPABASE_URL ??= `http://127.0.0.1:${process.env.E2E_SUPABASE_PORT}`;

const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

/** The production server (`node server/index.mjs` on the last build) on `port`, ready once /healthz answers. */
function appServer(port: string, env: Record<string, string>) {
  return {
    command: "node server/index.mjs",
    url: `http://127.0.0.1:${port}/healthz`,
    env: productionEnv({ PORT: port, ...env }),
    // A clean stop closes the embedded database, as in production.
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    timeout: 60_000,
  };
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
  // One worker: the servers (and the stub's scripted answers) are shared by every test.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  reporter: "list",
  use: { baseURL, trace: "retain-on-failure" },
  projects: [
    { name: "js-on", use: { ...chromium, javaScriptEnabled: true } },
    { name: "js-off", use: { ...chromium, javaScriptEnabled: false } },
  ],
  // Every browser test shares these: the stub Supabase, scripted by tests through its /__stub/ API; the production
  // server with the embedded store (what `npm start` gives a fresh machine); the same app configured with the stub,
  // where every view asks the stub, so each test's scripted answer is what the page shows. The environment is
  // productionEnv's (tests/support/server-process.mjs): every variable the app reads set explicitly.
  webServer: [
    {
      command: "node tests/support/stub-supabase/main.ts",
      url: `${process.env.E2E_STUB_URL}/__stub/state`,
      env: { STUB_PORT: process.env.E2E_STUB_PORT, STUB_ANON_KEY: process.env.E2E_STUB_ANON_KEY },
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
    appServer(process.env.E2E_PORT, { DATA_DIR: process.env.E2E_DATA_DIR }),
    appServer(process.env.E2E_SUPABASE_PORT, {
      DATA_DIR: process.env.E2E_SUPABASE_DATA_DIR,
      SUPABASE_URL: process.env.E2E_STUB_URL,
      SUPABASE_ANON_KEY: process.env.E2E_STUB_ANON_KEY,
      LATEST_POST_TTL_SECONDS: "0",
      LATEST_POST_FAILURE_TTL_SECONDS: "0",
    }),
  ],
});
