import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { serverHarness, type ServerProcess } from "../production-server";
import { startSmtpServer, type TestSmtpServer } from "../smtp-server";
import { startSignedStub } from "../stub-supabase/signed-stub";
import type { StubSupabase } from "../stub-supabase/stub";
import { newsletter, sendEnv, writeUpdate } from "./cli";

export const CONFIRM_SECRET = "c".repeat(40);

/** What a ledger test with the list in Supabase talks to; set by the suite's beforeAll. */
export interface SupabaseWorld {
  /** The suite's own folder: the server's, the commands' and the updates' data. */
  dir: string;
  /** The Supabase stand-in whose answers come from the real migrations on PGlite, signing as the server does. */
  rest: StubSupabase;
  relay: TestSmtpServer;
  /** The production server with its list in `rest` and its mail through `relay`. */
  server: ServerProcess;
}

/**
 * Starts, for the suite that calls it, the production server with its list in Supabase, a loopback relay and the
 * stand-in, and stops them after it. The returned object is filled in by the suite's beforeAll.
 */
export function supabaseWorld(prefix: string): SupabaseWorld {
  const harness = serverHarness(prefix);
  const world = {} as SupabaseWorld;
  beforeAll(async () => {
    world.dir = mkdtempSync(path.join(tmpdir(), prefix));
    world.rest = await startSignedStub(CONFIRM_SECRET);
    world.relay = await startSmtpServer();
    world.server = await harness.start({
      DATA_DIR: path.join(world.dir, "data"),
      SMTP_URL: world.relay.url(),
      MAIL_FROM: "Alex <updates@example.com>",
      SUPABASE_URL: world.rest.url,
      SUPABASE_ANON_KEY: world.rest.anonKey,
      SUPABASE_CONFIRM_SECRET: CONFIRM_SECRET,
    });
  }, 120_000);
  afterAll(async () => {
    await harness.cleanup();
    await world.relay?.close();
    await world.rest?.close();
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}

/** The owner's commands' environment for the list in `stub`, with the service role key they are given. */
export const ownerEnv = (stub: StubSupabase, more: Record<string, string> = {}) => ({
  SUPABASE_URL: stub.url,
  SUPABASE_ANON_KEY: stub.anonKey,
  SUPABASE_SERVICE_ROLE_KEY: stub.serviceRoleKey,
  ...more,
});

/** `npm run newsletter`'s environment in the world, its list in Supabase. */
export const sendEnvOf = (world: SupabaseWorld, env: Record<string, string>) =>
  sendEnv(path.join(world.dir, "send-data"), path.join(world.dir, "updates"), world.relay.url(), env);

/** Writes an update, sends it with the command and answers who got it. */
export async function sendUpdate(world: SupabaseWorld, env: Record<string, string>, name: string) {
  writeUpdate(path.join(world.dir, "updates"), name, { title: name, summary: name });
  const before = world.relay.mails.length;
  const run = await newsletter(sendEnvOf(world, env), ["send", name]);
  expect(run.code, run.stderr).toBe(0);
  return world.relay.mails.slice(before).map((mail) => mail.envelopeTo[0]!);
}
