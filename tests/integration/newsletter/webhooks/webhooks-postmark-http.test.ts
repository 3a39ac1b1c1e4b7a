/**
 * Postmark's Subscription Change webhook at the production server (the payload of postmarkapp.com/developer/webhooks/
 * subscription-change-webhook, with HTTP Basic credentials as Postmark sends them): a SpamComplaint on a Broadcast
 * stream suppresses its reader as complained, with the embedded list and with Supabase; a ManualSuppression (the
 * reader's own unsubscribe at Postmark) suppresses them as unsubscribed with Supabase's real migrations (on PGlite); a
 * reactivation changes nothing; Postmark's test request is answered 200.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addReaders } from "../../../support/newsletter/cli";
import { storedSuppression } from "../../../support/newsletter/http";
import { sendReaders } from "../../../support/pglite-migrations";
import { serverHarness } from "../../../support/production-server";
import { startSignedStub } from "../../../support/stub-supabase/signed-stub";
import type { StubSupabase } from "../../../support/stub-supabase/stub";
import { basicAuth, fixture, POSTMARK_AUTH } from "../../../support/webhook-signing";

const harness = serverHarness("webhooks-postmark-");
const KEY = "the-database-and-the-server-share-this-key";
let stub: StubSupabase;
beforeAll(async () => {
  stub = await startSignedStub(KEY);
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await harness.cleanup();
  await stub.close();
});

const postmark = (url: string, body: unknown) =>
  fetch(`${url}/webhooks/postmark`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: basicAuth(POSTMARK_AUTH) },
    body: JSON.stringify(body),
  });
const change = (fields: Record<string, unknown> = {}) => ({ ...fixture("postmark", "subscription-change"), ...fields });

describe("Postmark's Subscription Change over HTTP", () => {
  it("with the embedded list: a SpamComplaint suppresses its reader; a reactivation and the test request change nothing", async () => {
    const dataDir = harness.scratchDir();
    await addReaders(dataDir, ["annoyed@example.org", "reader@example.com"]);
    const server = await harness.start({ POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH, DATA_DIR: dataDir });
    const reason = (email: string) => storedSuppression(dataDir, email);
    expect((await postmark(server.url, {})).status).toBe(200);
    const reactivation = change({ Recipient: "reader@example.com", SuppressSending: false });
    expect((await postmark(server.url, reactivation)).status).toBe(200);
    await server.waitForOutput("a reactivation at Postmark, which changes nothing here");
    expect(reason("reader@example.com")).toBeNull();

    expect((await postmark(server.url, change())).status).toBe(200);
    expect(reason("annoyed@example.org")).toBe("complained");
    await server.waitForOutput("Webhook postmark: 1 complained suppressed");
  }, 90_000);

  it("with Supabase: a SpamComplaint suppresses its reader through the server's signed call", async () => {
    await stub.reset();
    await stub.seedEmails("annoyed@example.org");
    const server = await harness.start({
      SUPABASE_URL: stub.url,
      SUPABASE_ANON_KEY: stub.anonKey,
      SUPABASE_CONFIRM_SECRET: KEY,
      POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH,
      DATA_DIR: harness.scratchDir(),
    });
    expect((await postmark(server.url, change())).status).toBe(200);
    expect(await stub.suppressedReason("annoyed@example.org")).toBe("complained");
  }, 90_000);

  it("with Supabase's migrations: a ManualSuppression suppresses its reader as unsubscribed, for good", async () => {
    await stub.reset();
    await stub.seedEmails("left@example.org", "reader@example.com");
    const server = await harness.start({
      SUPABASE_URL: stub.url,
      SUPABASE_ANON_KEY: stub.anonKey,
      SUPABASE_CONFIRM_SECRET: KEY,
      POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH,
      DATA_DIR: harness.scratchDir(),
    });
    const manual = change({ Recipient: "left@example.org", SuppressionReason: "ManualSuppression" });
    expect((await postmark(server.url, manual)).status).toBe(200);
    await server.waitForOutput("Webhook postmark: 1 unsubscribed suppressed");
    expect(await stub.suppressedReason("left@example.org")).toBe("unsubscribed");
    const stones = await stub.db.query<{ reason: string }>("select reason from newsletter_private.tombstones");
    expect(stones.rows).toEqual([{ reason: "unsubscribed" }]);
    expect(await sendReaders(stub.db)).toEqual(["reader@example.com"]);
  }, 90_000);
});
