/**
 * What each test of the update command (`npm run newsletter`) starts from: a scratch folder of its own holding the
 * list's data and the updates, the update to send written there, and a real SMTP relay on loopback. After the test,
 * the relay is closed and the folder removed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { sendEnv, writeUpdate } from "./cli";
import { startSmtpServer, type TestSmtpServer } from "../smtp-server";

export interface SendSetup {
  readonly dataDir: string;
  readonly updatesDir: string;
  readonly relay: TestSmtpServer;
  /** The command's environment on this test's folders and relay, with `extra` on top. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

interface Update {
  name: string;
  front: Record<string, unknown>;
  body?: string;
}

/**
 * Sets up every test of the file (call it at the file's top level, before its own hooks, which then run after this
 * set-up and before its clean-up); the returned object reads the current test's folders and relay.
 */
export function sendSetupPerTest(prefix: string, update?: Update): SendSetup {
  let current: { dir: string; dataDir: string; updatesDir: string; relay: TestSmtpServer } | undefined;
  const now = () => {
    if (!current) throw new Error("the send set-up is there inside a test only");
    return current;
  };
  beforeEach(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    const updatesDir = path.join(dir, "updates");
    if (update) writeUpdate(updatesDir, update.name, update.front, update.body);
    current = { dir, dataDir: path.join(dir, "data"), updatesDir, relay: await startSmtpServer() };
  });
  afterEach(async () => {
    const ending = now();
    current = undefined;
    await ending.relay.close();
    rmSync(ending.dir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return now().dataDir;
    },
    get updatesDir() {
      return now().updatesDir;
    },
    get relay() {
      return now().relay;
    },
    env: (extra = {}) => sendEnv(now().dataDir, now().updatesDir, now().relay.url(), extra),
  };
}
