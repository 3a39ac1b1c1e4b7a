/**
 * Sending with the list in Supabase: the command reads it with the service role key given to it alone (the
 * stand-in's PostgREST, the real migrations on PGlite, answers the table's GET only for that key), one mail per reader with their own unsubscribe link.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { startStubSupabase, type StubSupabase } from "../../../support/stub-supabase/stub";
import { newsletter, perRecipient, sendEnv, writeUpdate } from "../../../support/newsletter/cli";

const SERVICE_KEY = "stub-service-role-key";
const NAME = "2026-11-20-first";
let dir: string;
let relay: TestSmtpServer;
let stub: StubSupabase;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "newsletter-supabase-"));
  writeUpdate(path.join(dir, "updates"), NAME, { title: "First" });
  relay = await startSmtpServer();
  stub = await startStubSupabase({ serviceRoleKey: SERVICE_KEY });
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await stub.close();
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (key: string) =>
  sendEnv(path.join(dir, "data"), path.join(dir, "updates"), relay.url(), {
    SUPABASE_URL: stub.url,
    SUPABASE_ANON_KEY: stub.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: key,
  });

describe("sending with the list in Supabase", () => {
  it("refuses a wrong key with Supabase's words, sending nothing", async () => {
    await stub.seedEmails("a@example.org", "b@example.org");
    const run = await newsletter(env("not-the-key"), ["send", NAME]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Supabase did not give the list: Invalid API key");
    expect(relay.mails).toHaveLength(0);
  });

  it("reads the readers with the service role key and sends each their own mail once", async () => {
    const emails = Array.from({ length: 25 }, (_, n) => `reader${n}@example.org`);
    await stub.seedEmails(...emails);
    const run = await newsletter(env(SERVICE_KEY), ["send", NAME]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("27 of 27 sent");
    const received = perRecipient(relay.mails);
    expect([...received.values()].every((count) => count === 1)).toBe(true);
    expect(received.size).toBe(27);
    for (const email of emails) {
      const mail = relay.mails.find((candidate) => candidate.envelopeTo[0] === email)!;
      expect(mail.parsed.text).toContain(`https://example.com/unsubscribe?token=${await stub.tokenOf(email)}`);
    }
  });
});
