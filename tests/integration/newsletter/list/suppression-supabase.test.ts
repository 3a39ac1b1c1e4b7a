/**
 * A refused address is never mailed again with the list in Supabase (the stand-in's PostgREST in front of the real
 * migrations on PGlite): a signed relay webhook at the production server suppresses its reader through the
 * server's signed call, a 550 at RCPT during `npm run newsletter -- send` through the service role, and the next send
 * opens no RCPT TO for either. A server whose key is not the database's changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribe } from "../../../support/newsletter/http";
import { newsletter, sendEnv, writeUpdate } from "../../../support/newsletter/cli";
import { serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { startSignedStub } from "../../../support/stub-supabase/signed-stub";
import type { StubSupabase } from "../../../support/stub-supabase/stub";
import { basicAuth, fixtureText, POSTMARK_AUTH, RESEND_SECRET, resendHeaders } from "../../../support/webhook-signing";

const KEY = "the-database-and-the-server-share-this-key";
const SERVICE_KEY = "stub-service-role-key";
const FIRST = "2026-11-20-first";
const SECOND = "2026-11-27-second";
const harness = serverHarness("suppression-supabase-");
let dir: string;
let relay: TestSmtpServer;
let stub: StubSupabase;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "suppression-supabase-"));
  writeUpdate(path.join(dir, "updates"), FIRST, { title: "First" });
  relay = await startSmtpServer();
  stub = await startSignedStub(KEY, SERVICE_KEY);
  // Each relay's documented bounce names gone@example.net, its complaint annoyed@example.org (tests/fixtures/webhooks).
  await stub.seedEmails("gone@example.net", "annoyed@example.org", "reader@example.com", "refuser@example.org");
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await harness.cleanup();
  await stub.close();
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

const serverEnv = (secret: string) => ({
  SUPABASE_URL: stub.url,
  SUPABASE_ANON_KEY: stub.anonKey,
  SUPABASE_CONFIRM_SECRET: secret,
  SMTP_URL: relay.url(),
  MAIL_FROM: "Alex Placeholder <updates@example.com>",
  DATA_DIR: harness.scratchDir(),
  RESEND_WEBHOOK_SECRET: RESEND_SECRET,
  POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH,
});
const commandEnv = () =>
  sendEnv(path.join(dir, "data"), path.join(dir, "updates"), relay.url(), {
    SUPABASE_URL: stub.url,
    SUPABASE_ANON_KEY: stub.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: SERVICE_KEY,
  });
const post = (url: string, relayName: string, body: string, headers: Record<string, string>) =>
  fetch(`${url}/webhooks/${relayName}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
const seconds = () => Math.floor(Date.now() / 1000);
const resendBounce = (id: string) => {
  const body = fixtureText("resend", "bounced");
  return { body, headers: resendHeaders(body, seconds(), id) };
};
const postmarkComplaint = () => ({
  body: fixtureText("postmark", "spam-complaint"),
  headers: { Authorization: basicAuth(POSTMARK_AUTH) },
});
const recipients = (subject: string) =>
  relay.mails
    .filter((mail) => mail.parsed.subject === subject)
    .map((mail) => mail.envelopeTo[0])
    .sort();

describe("suppression with the list in Supabase", () => {
  it("a server whose key is not the database's answers 503 and suppresses nobody", async () => {
    const server = await harness.start(serverEnv("x".repeat(40)));
    const { body, headers } = resendBounce("msg_wrong_key");
    expect((await post(server.url, "resend", body, headers)).status).toBe(503);
    expect(await stub.suppressedReason("gone@example.net")).toBeNull();
    expect(server.output()).toContain("Supabase refused the suppression call");
    expect(server.output()).not.toContain("x".repeat(40));
  });

  it("a signed bounce and complaint suppress their readers; a tampered one changes nothing; a bounced reader's new sign-up is asked to confirm", async () => {
    const server = await harness.start(serverEnv(KEY));
    const suppressionCalls = () => stub.requests.filter((request) => request.path.startsWith("/rest/v1/rpc/")).length;
    const callsBefore = suppressionCalls();
    const tampered = resendBounce("msg_tampered");
    const changed = tampered.body.replace("example", "exampel");
    expect((await post(server.url, "resend", changed, tampered.headers)).status).toBe(401);
    expect(suppressionCalls()).toBe(callsBefore);

    const bounce = resendBounce("msg_bounce");
    expect((await post(server.url, "resend", bounce.body, bounce.headers)).status).toBe(200);
    expect(await stub.suppressedReason("gone@example.net")).toBe("bounced");
    const complaint = postmarkComplaint();
    expect((await post(server.url, "postmark", complaint.body, complaint.headers)).status).toBe(200);
    expect(await stub.suppressedReason("annoyed@example.org")).toBe("complained");
    // The same complaint again is harmless.
    expect((await post(server.url, "postmark", complaint.body, complaint.headers)).status).toBe(200);
    expect(await stub.suppressedReason("reader@example.com")).toBeNull();
    // The calls went signed with the anon key, never the service role key, and never held the secret.
    const calls = stub.requests.filter((request) => request.path.startsWith("/rest/v1/rpc/newsletter_suppress"));
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call.headers.apikey).toBe(stub.anonKey);
      expect(call.body).not.toContain(KEY);
    }

    // The person signing up again is a new sign-up (the ledger's rule): one confirmation mail, to them alone, and no
    // update until they confirm.
    expect(await subscribe(server.url, "gone@example.net")).toMatchObject({ message: "Successfully subscribed!" });
    const [confirmation] = await relay.waitForMails(1, 10_000);
    expect(confirmation!.envelopeTo).toEqual(["gone@example.net"]);
    expect(await stub.rowOf("gone@example.net")).toMatchObject({ state: "pending", suppressed_reason: null });
  });

  it("a 550 at RCPT during a send suppresses, and the next send opens no RCPT for any suppressed reader", async () => {
    relay.reject("refuser@example.org", 550, "5.1.1 <refuser@example.org>: user unknown");
    const first = await newsletter(commandEnv(), ["send", FIRST]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("1 of 2 sent");
    expect(recipients("First")).toEqual(["reader@example.com"]);
    expect(relay.refusals).toEqual([{ address: "refuser@example.org", code: 550 }]);
    expect(await stub.rowOf("refuser@example.org")).toMatchObject({
      suppressed_reason: "bounced",
      suppressed_detail: expect.stringContaining("user unknown"),
    });

    writeUpdate(path.join(dir, "updates"), SECOND, { title: "Second" });
    const second = await newsletter(commandEnv(), ["send", SECOND]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("1 of 1 sent");
    expect(recipients("Second")).toEqual(["reader@example.com"]);
    expect(relay.refusals).toHaveLength(1);

    // The owner's status counts the refused reader against the send they were refused in, read from Supabase.
    const status = await newsletter(commandEnv(), ["status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${FIRST}\\t.*1 handed to the relay, 1 bounced, 0 complained`, "m"));
    expect(status.stdout).toMatch(new RegExp(`^${SECOND}\\t.*1 handed to the relay, 0 bounced, 0 complained`, "m"));
    // The counts are the sends' own record: the list is not read (no key needed), and lifting the suppression in
    // Supabase leaves the finished send's line as it was.
    const { SUPABASE_SERVICE_ROLE_KEY: _key, ...withoutKey } = commandEnv();
    const unread = await newsletter(withoutKey, ["status"]);
    expect(unread.code, unread.stderr).toBe(0);
    expect(unread.stdout).toBe(status.stdout);
    // The owner's lift, as the service role calls it (the SQL editor's newsletter_unsuppress).
    const lifted = await fetch(`${stub.url}/rest/v1/rpc/newsletter_unsuppress`, {
      method: "POST",
      headers: { apikey: SERVICE_KEY, Authorization: `Bearer ${SERVICE_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ address: "refuser@example.org", issued_at: Date.now(), signature: null }),
    });
    expect(await lifted.json()).toBe("lifted");
    expect(await stub.suppressedReason("refuser@example.org")).toBeNull();
    expect((await newsletter(commandEnv(), ["status"])).stdout).toBe(status.stdout);
  }, 60_000); // four runs of the command
});
