/**
 * Double opt-in with the list in Supabase (the stand-in's PostgREST in front of the real migrations on PGlite, the
 * owner's signing key stored) and a real SMTP server on loopback, through the production server.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { startSignedStub } from "../../../support/stub-supabase/signed-stub";
import type { StubSupabase } from "../../../support/stub-supabase/stub";
import { confirmTokenIn, pressConfirm } from "../../../support/confirm-link";

const harness = serverHarness("confirm-supabase-");
const KEY = "the-database-and-the-server-share-this-key";
let relay: TestSmtpServer;
let stub: StubSupabase;

beforeAll(async () => {
  stub = await startSignedStub(KEY);
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await stub.close();
});
beforeEach(async () => {
  relay = await startSmtpServer();
  await stub.reset();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});
const stateOf = async (email: string) => (await stub.rowOf(email))?.state;

const env = (extra: Record<string, string> = {}) => ({
  SUPABASE_URL: stub.url,
  SUPABASE_ANON_KEY: stub.anonKey,
  SMTP_URL: relay.url(),
  MAIL_FROM: "Alex Placeholder <updates@example.com>",
  DATA_DIR: harness.scratchDir(),
  ...extra,
});

describe("double opt-in with Supabase", () => {
  it("stores the reader pending, mails the link, and only the button confirms", async () => {
    const server = await harness.start(env({ SUPABASE_CONFIRM_SECRET: KEY }));
    expect(await subscribe(server.url, "reader@example.com")).toMatchObject({ message: "Successfully subscribed!" });
    expect(await stub.rowOf("reader@example.com")).toMatchObject({ state: "pending", consent_page: "/" });
    const [mail] = await relay.waitForMails(1, 10_000);
    const token = confirmTokenIn(mail!.parsed.text ?? "")!;
    expect(token).not.toBeNull();
    // What went to Supabase was the token's hash, signed; never the token.
    expect(stub.requests.some((request) => request.body.includes(token))).toBe(false);

    expect((await fetch(`${server.url}/confirm?token=${token}`)).status).toBe(200);
    expect(await stateOf("reader@example.com")).toBe("pending");
    const confirmed = await pressConfirm(server.url, token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain("You&#x27;re subscribed");
    expect(await stateOf("reader@example.com")).toBe("confirmed");
    // A reused link: Supabase kept the used token's hash, and the page says the reader is on the list already.
    const again = await pressConfirm(server.url, token);
    expect(again.status).toBe(200);
    const page = again.html;
    expect(page).toContain("You&#x27;re already on the list");
    expect(page).not.toContain("sign up again");
    // A link nobody was mailed is still "expired or used".
    expect((await pressConfirm(server.url, "A".repeat(43))).status).toBe(410);

    expect(await subscribe(server.url, "reader@example.com")).toMatchObject({ message: "Already subscribed" });
    expect(relay.mails).toHaveLength(1);
  });

  it("sends no mail when the server's key is not the database's (the signature is refused)", async () => {
    const server = await harness.start(env({ SUPABASE_CONFIRM_SECRET: "x".repeat(40) }));
    await subscribe(server.url, "reader@example.com");
    await server.waitForOutput("Supabase refused the confirmation token's signature", 10_000);
    expect(relay.mails).toHaveLength(0);
    expect(await stateOf("reader@example.com")).toBe("pending");
    expect(server.output()).not.toContain("x".repeat(40));
  });

  it("without SUPABASE_CONFIRM_SECRET, stores sign-ups as before and sends nothing", async () => {
    const server = await harness.start(env());
    await server.waitForOutput("SUPABASE_CONFIRM_SECRET is not set", 5_000);
    expect(await subscribe(server.url, "plain@example.com")).toMatchObject({ message: "Successfully subscribed!" });
    expect(await stub.storedEmails()).toEqual(["plain@example.com"]);
    // The database holds a signing key, so even a direct insert waits for a confirmation that nobody can send.
    expect(await stateOf("plain@example.com")).toBe("pending");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.mails).toHaveLength(0);
  });
});
