/**
 * The key that reads every address with Supabase belongs to the update command alone: the web server refuses to start
 * with it, saying where it goes, and never prints it; the command without it says how to give it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServerExpectingFailure } from "../../../support/production-server";
import { newsletter, sendEnv, writeUpdate } from "../../../support/newsletter/cli";
import { startStubSupabase } from "../../../support/stub-supabase/stub";

const KEY = "service-role-key-that-must-never-be-printed";
const dir = mkdtempSync(path.join(tmpdir(), "newsletter-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SUPABASE_SERVICE_ROLE_KEY", () => {
  it("stops the web server at start-up, naming the variable and the command it belongs to, never its value", async () => {
    const { exit, output } = await startServerExpectingFailure({
      env: { DATA_DIR: path.join(dir, "server"), SUPABASE_SERVICE_ROLE_KEY: KEY },
    });
    expect(exit.code).not.toBe(0);
    expect(output()).toContain("SUPABASE_SERVICE_ROLE_KEY must not be given to the web server");
    expect(output()).toContain("npm run newsletter -- send <name>");
    expect(output()).not.toContain(KEY);
  });

  it("is asked for by the command when the list lives in Supabase, and nothing is sent or queued", async () => {
    // The command refuses before it asks for the list: no database is needed behind the stand-in.
    const stub = await startStubSupabase({ database: false });
    try {
      const updates = path.join(dir, "updates");
      writeUpdate(updates, "2026-11-20-first", { title: "First" });
      const env = sendEnv(path.join(dir, "data"), updates, "file:///tmp/never-written", {
        SUPABASE_URL: stub.url,
        SUPABASE_ANON_KEY: stub.anonKey,
      });
      const run = await newsletter(env, ["send", "2026-11-20-first"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("SUPABASE_SERVICE_ROLE_KEY=<key> npm run newsletter -- send <name>");
      expect(existsSync(path.join(dir, "data", "mail-outbox.sqlite"))).toBe(false);
      expect(existsSync("/tmp/never-written")).toBe(false);
    } finally {
      await stub.close();
    }
  });
});
