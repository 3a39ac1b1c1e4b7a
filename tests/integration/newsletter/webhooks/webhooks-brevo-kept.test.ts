/**
 * Brevo drops a report answered 5xx or 4xx (but 429): "4xx response codes, except for 429, and any 5xx response code
 * stop all retry attempts and discard the webhook" (developers.brevo.com, Retry mechanism). So a Brevo report that
 * arrives while the list cannot take it is kept in the webhooks' journal under DATA_DIR, answered 200, and applied
 * when the list can: with the embedded store (its file locked by another writer) and with Supabase (a server whose
 * key the database refuses, then the same DATA_DIR restarted with the right one).
 */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { addReaders } from "../../../support/newsletter/cli";
import { storedSuppression } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { startSignedStub } from "../../../support/stub-supabase/signed-stub";
import type { StubSupabase } from "../../../support/stub-supabase/stub";
import { basicAuth, BREVO_AUTH, fixtureText } from "../../../support/webhook-signing";

const harness = serverHarness("webhooks-brevo-kept-");
const KEY = "the-database-and-the-server-share-this-key";
let stub: StubSupabase;
beforeAll(async () => {
  stub = await startSignedStub(KEY);
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await harness.cleanup();
  await stub.close();
});

const brevo = (url: string, fixture: "hard-bounce" | "spam") =>
  fetch(`${url}/webhooks/brevo`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: basicAuth(BREVO_AUTH) },
    body: fixtureText("brevo", fixture),
  });

describe("a Brevo report the list cannot take now", () => {
  it("with the embedded store: kept while the list's file is locked, answered 200, applied once the list can", async () => {
    const dataDir = harness.scratchDir();
    await addReaders(dataDir, ["gone@example.net", "annoyed@example.org"]);
    const server = await harness.start({ BREVO_WEBHOOK_AUTH: BREVO_AUTH, DATA_DIR: dataDir });
    const reason = (email: string) => storedSuppression(dataDir, email);

    // Another writer holds the file: the server's write waits its busy timeout, then fails.
    const lock = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME));
    lock.exec("begin exclusive");
    let response: Response;
    try {
      response = await brevo(server.url, "hard-bounce");
    } finally {
      lock.exec("rollback");
      lock.close();
    }
    expect(response.status).toBe(200);
    expect(server.output()).toContain("1 kept, to be applied when it can");
    expect(reason("gone@example.net")).toBeNull();

    // The next report finds the list free: the kept one goes first, then its own.
    expect((await brevo(server.url, "spam")).status).toBe(200);
    expect(reason("gone@example.net")).toBe("bounced");
    expect(reason("annoyed@example.org")).toBe("complained");
    // Brevo's retry of the first, had it come: applied already.
    expect((await brevo(server.url, "hard-bounce")).status).toBe(200);
    await server.waitForOutput("1 bounced repeated");
  }, 90_000);

  it("with Supabase: kept while the database refuses the server's key, applied when the server restarts with it", async () => {
    await stub.seedEmails("gone@example.net");
    const dataDir = harness.scratchDir();
    const env = (secret: string) => ({
      SUPABASE_URL: stub.url,
      SUPABASE_ANON_KEY: stub.anonKey,
      SUPABASE_CONFIRM_SECRET: secret,
      BREVO_WEBHOOK_AUTH: BREVO_AUTH,
      DATA_DIR: dataDir,
    });
    const refused = await harness.start(env("x".repeat(40)));
    expect((await brevo(refused.url, "hard-bounce")).status).toBe(200);
    expect(refused.output()).toContain("1 kept, to be applied when it can");
    expect(await stub.suppressedReason("gone@example.net")).toBeNull();
    await refused.stop();

    // No new report needed: the list arriving at start-up applies what was kept.
    const fixed = await harness.start(env(KEY));
    await fixed.waitForOutput("kept reports applied: 1 bounced suppressed");
    expect(await stub.suppressedReason("gone@example.net")).toBe("bounced");
  }, 90_000);
});
