import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { FAKE_ANON_KEY } from "./tests/support/stub-supabase";

// Workers load this file too: the port and data directory are chosen once, in the main process, and inherited.
function freePort(): string {
  return execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
  ])
    .toString()
    .trim();
}
process.env.E2E_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "portfolio-e2e-"));
// A second app server configured with Supabase (the stub, scripted by tests through its /__stub/ API):
// E2E_STUB_URL is the stub, E2E_SUPABASE_URL the app server that calls it.
process.env.E2E_STUB_PORT ??= freePort();
process.env.E2E_SUPABASE_PORT ??= freePort();
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

/** A production server of ours on `port`, with its own data folder. */
function appServer(
  port: string | undefined,
  dataDir: string | undefined,
  env: Record<string, string | undefined> = {},
) {
  return {
    command: "node server/index.mjs",
    url: `http://127.0.0.1:${port}/robots.txt`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe" as const,
    stderr: "pipe" as const,
    env: {
      NODE_ENV: "production",
      PORT: port ?? "",
      HOST: "127.0.0.1",
      SESSION_SECRET: "e2e-session-secret-that-is-long-enough-0123456789",
      DATA_DIR: dataDir ?? "",
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
      ...env,
    } as Record<string, string>,
  };
}

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
  webServer: [
    // The embedded-store server (no Supabase): what `npm start` gives a fresh machine.
    appServer(process.env.E2E_PORT, process.env.E2E_DATA_DIR),
    {
      command: "node tests/support/stub-supabase-main.ts",
      url: `${process.env.E2E_STUB_URL}/__stub/state`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        STUB_PORT: process.env.E2E_STUB_PORT,
        STUB_HOST: "127.0.0.1",
        STUB_ANON_KEY: process.env.E2E_STUB_ANON_KEY,
      },
    },
    // The same app configured with the stub Supabase; every view asks the stub, so each test's scripted answer is
    // what the page shows.
    appServer(process.env.E2E_SUPABASE_PORT, process.env.E2E_SUPABASE_DATA_DIR, {
      SUPABASE_URL: process.env.E2E_STUB_URL,
      SUPABASE_ANON_KEY: process.env.E2E_STUB_ANON_KEY,
      LATEST_POST_TTL_SECONDS: "0",
      LATEST_POST_FAILURE_TTL_SECONDS: "0",
    }),
  ],
});
