import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { freePort } from "./tests/support/server-process.mjs";
import { FAKE_ANON_KEY } from "./tests/support/stub-supabase";

// Workers load this file too: the ports and data directories are chosen once, in the main process, and inherited.
// tests/e2e/global-setup.ts starts the servers on them.
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
  // The production servers, through the same harness as every other test (tests/support/server-process.mjs).
  globalSetup: "./tests/e2e/global-setup.ts",
});
