import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openSupabaseList } from "~/newsletter/list/supabase/supabase-list.server";
import { freePort } from "../../../support/production-server";
import { startStubSupabase, type StubSupabase } from "../../../support/stub-supabase/stub";
import { withoutMail } from "../../../support/newsletter/without-mail";
import { migrate, storeSigningKey } from "../../../support/pglite-migrations";

// Short, so the time-box cases stay fast; the stand-in's delays are chosen well beyond it. The other cases wait as
// long as the site does: the database answers them, and on a busy machine that can take longer than this.
const TIME_BOX_MS = 300;

let stub: StubSupabase;
let store: ReturnType<typeof openSupabaseList>;
let boxed: ReturnType<typeof openSupabaseList>;
let errors: ReturnType<typeof vi.spyOn>;

beforeAll(async () => {
  stub = await startStubSupabase();
  store = openSupabaseList({ url: stub.url, anonKey: stub.anonKey });
  boxed = openSupabaseList({ url: stub.url, anonKey: stub.anonKey, timeoutMs: TIME_BOX_MS });
}, 120_000); // PGlite's first start compiles its WebAssembly

afterAll(async () => {
  await stub.close();
});

afterEach(async () => {
  await stub.reset();
  vi.restoreAllMocks();
});

function captureErrors() {
  errors = vi.spyOn(console, "error").mockImplementation(() => {});
  return () => errors.mock.calls.flat().map(String).join("\n");
}

describe("the Supabase store (against the stand-in's PostgREST over HTTP, the real migrations on PGlite)", () => {
  it("calls the sign-up function with the consent, and the reader is stored confirmed with it", async () => {
    const before = Date.now();
    const consent = withoutMail(before, "/updates/2025-11-01-pricing");
    expect((await store.signUp("ada@example.com", consent)).outcome).toBe("subscribed");
    const [request] = stub.requests;
    expect(request).toMatchObject({ method: "POST", path: "/rest/v1/rpc/newsletter_sign_up_without_mail" });
    expect(request!.headers.apikey).toBe(stub.anonKey);
    const { consent: given } = consent as Extract<typeof consent, { state: "confirmed" }>;
    expect(JSON.parse(request!.body)).toEqual({
      address: "ada@example.com",
      page: given.page,
      wording_version: given.version,
      wording: given.wording,
    });
    const row = await stub.rowOf("ada@example.com");
    expect(row).toMatchObject({ state: "confirmed", consent_page: given.page, consent_version: given.version });
    expect(row!.confirmed_at!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    const wordings = await stub.db.query("select version, wording from public.newsletter_consent_wordings");
    expect(wordings.rows).toEqual([{ version: given.version, wording: given.wording }]);
  });

  it("stores a mailbox that left, never mailed, and says 'subscribed' as it always has", async () => {
    await store.signUp("someone@gmail.com", withoutMail());
    expect(await store.unsubscribe((await stub.tokenOf("someone@gmail.com"))!)).toBe("removed");
    expect((await store.signUp("some.one+news@googlemail.com", withoutMail())).outcome).toBe("subscribed");
    expect(await stub.suppressedReason("some.one+news@googlemail.com")).toBe("unsubscribed");
  });

  it("answers 'subscribed' when the database holds a signing key, stores the reader pending, and says why", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    await storeSigningKey(stub.db, "k".repeat(40));
    try {
      expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("subscribed");
    } finally {
      await stub.db.exec("delete from newsletter_private.settings where name = 'confirm_signing_key'");
    }
    expect(await stub.rowOf("ada@example.com")).toMatchObject({ state: "pending", confirmed_at: null });
    expect(warned.mock.calls.flat().join("\n")).toMatch(/pending: the database holds a confirm_signing_key/);
  });

  it("falls back to the plain insert where the function is missing, with one line naming the migration", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    await stub.db.exec("drop function public.newsletter_sign_up_without_mail(text, text, text, text)");
    try {
      expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("subscribed");
      expect((await store.signUp("ADA@example.com", withoutMail())).outcome).toBe("duplicate");
    } finally {
      await migrate(stub.db, "20261128300000_newsletter_sign_up_without_mail.sql");
    }
    expect(stub.requests.map(({ path }) => path)).toEqual([
      "/rest/v1/rpc/newsletter_sign_up_without_mail",
      "/rest/v1/newsletter_subscribers",
      "/rest/v1/rpc/newsletter_sign_up_without_mail",
      "/rest/v1/newsletter_subscribers",
    ]);
    expect(stub.inserts).toEqual([{ email: "ada@example.com" }, { email: "ADA@example.com" }]);
    // What a plain insert stores: no consent record.
    expect(await stub.rowOf("ada@example.com")).toMatchObject({ state: "confirmed", consent_page: null });
    expect(warned).toHaveBeenCalledTimes(2);
    expect(String(warned.mock.calls[0])).toContain(
      "apply supabase/migrations/20261128300000_newsletter_sign_up_without_mail.sql",
    );
  });

  it("unsubscribes through the database function and says whether the token belonged to anyone", async () => {
    await stub.seedEmails("leave@example.com");
    const token = (await stub.tokenOf("leave@example.com"))!;
    expect(await store.unsubscribe("3f1e2d4c-5b6a-4789-8abc-def012345678")).toBe("unknown");
    expect(await store.unsubscribe(token)).toBe("removed");
    expect(await stub.storedEmails()).toEqual([]);
    expect(await store.unsubscribe(token)).toBe("unknown");
    // Not a token at all: PostgREST is not even asked.
    expect(await store.unsubscribe("not-a-token")).toBe("unknown");
    expect(stub.unsubscribeCalls).toBe(3);
  });

  it("answers 'duplicate' for an address on the list, in any letter case", async () => {
    await stub.seedEmails("ada@example.com");
    expect((await store.signUp("ADA@example.com", withoutMail())).outcome).toBe("duplicate");
    expect(await stub.storedEmails()).toEqual(["ada@example.com"]);
  });

  it("answers 'failed' on a 500 with a PostgREST error, and logs the cause without the address", async () => {
    const logged = captureErrors();
    stub.setInsertBehaviour({ kind: "error" });
    expect((await store.signUp("ada.lovelace@example.com", withoutMail())).outcome).toBe("failed");
    expect(logged()).toMatch(/HTTP 500 XX000.*internal error/);
    expect(logged()).toContain("a***@example.com");
    expect(logged()).not.toContain("ada.lovelace");
  });

  it("answers 'failed' on another Postgres error (e.g. a row-level security refusal)", async () => {
    captureErrors();
    stub.setInsertBehaviour({
      kind: "error",
      status: 401,
      body: { code: "42501", message: "new row violates row-level security policy", details: null, hint: null },
    });
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
  });

  it("answers 'failed' on a non-JSON gateway page", async () => {
    const logged = captureErrors();
    stub.setInsertBehaviour({ kind: "non-json" });
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    expect(logged()).toMatch(/HTTP 502.*Bad Gateway/);
  });

  it("answers 'failed' on a 2xx whose body is not JSON, and stores nothing", async () => {
    const logged = captureErrors();
    stub.setInsertBehaviour({ kind: "non-json", status: 200, body: "<html>captive portal</html>" });
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    expect(logged()).toMatch(/sign-up of a\*\*\*@example\.com failed/);
    expect(await stub.storedEmails()).toEqual([]);
  });

  it("answers 'failed' when the answer comes after the time box", async () => {
    const logged = captureErrors();
    stub.setInsertBehaviour({ kind: "store", delayMs: 3_000 });
    const started = performance.now();
    expect((await boxed.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    // A generous bound: far below the stub's delay, so the time box, not the answer, ended the wait.
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(logged()).toMatch(/abort|timeout|time box/i);
  });

  it("answers 'failed' when PostgREST never answers", async () => {
    captureErrors();
    stub.setInsertBehaviour({ kind: "hang" });
    const started = performance.now();
    expect((await boxed.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it("answers 'failed' when nothing listens at SUPABASE_URL", async () => {
    const logged = captureErrors();
    const unreachable = openSupabaseList({
      url: `http://127.0.0.1:${await freePort()}`,
      anonKey: stub.anonKey,
      timeoutMs: TIME_BOX_MS,
    });
    expect((await unreachable.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    expect(logged()).toMatch(/fetch failed|ECONNREFUSED/i);
  });
});
