/**
 * The sign-up against the production server over HTTP with Supabase holding the list (the stand-in's PostgREST in
 * front of the real migrations on PGlite); the
 * embedded store: newsletter-http.test.ts. Needs `npm run build` first (`npm test` does it).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALREADY_SUBSCRIBED_TOAST, SOMETHING_WENT_WRONG_TOAST, SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { getHome, postForm, subscribe } from "../../../support/newsletter/http";
import { freePort, serverHarness, type ServerProcess } from "../../../support/production-server";
import { startStubSupabase, type StubSupabase } from "../../../support/stub-supabase/stub";

const harness = serverHarness("newsletter-http-supabase-");
const scratchDir = () => harness.scratchDir();
const start = (env: Record<string, string>) => harness.start(env);

afterAll(() => harness.cleanup());

describe("the sign-up over HTTP, Supabase store (the stand-in's PostgREST)", () => {
  let stub: StubSupabase;
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    stub = await startStubSupabase();
    dataDir = scratchDir();
    server = await start({ SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey, DATA_DIR: dataDir });
  }, 120_000); // PGlite's first start compiles its WebAssembly

  afterAll(async () => {
    await stub?.close();
  });

  it("stores into Supabase with the consent record, not the embedded file, and maps the answers to their toasts", async () => {
    expect(await subscribe(server.url, "Remote@example.com")).toMatchObject({ message: SUBSCRIBED_TOAST.message });
    expect(await subscribe(server.url, "remote@EXAMPLE.com")).toMatchObject({
      message: ALREADY_SUBSCRIBED_TOAST.message,
    });
    expect(await stub.storedEmails()).toEqual(["Remote@example.com"]);
    expect(stub.callsOf("newsletter_sign_up_without_mail")).toBe(2);
    expect(stub.insertCalls).toBe(0);
    expect(await stub.rowOf("Remote@example.com")).toMatchObject({
      state: "confirmed",
      consent_page: "/",
      consent_version: dialogConsent("/").version,
    });
    expect(existsSync(path.join(dataDir, "newsletter.sqlite"))).toBe(false);
  });

  it.each([
    ["a 500", { kind: "error" } as const],
    ["a non-JSON gateway page", { kind: "non-json" } as const],
  ])("answers %s with 'Something went wrong', never a 5xx", async (_label, behaviour) => {
    stub.setInsertBehaviour(behaviour);
    try {
      const posted = await postForm(server.url, new URLSearchParams({ email: "down@example.com" }));
      expect(posted.status).toBe(303);
      expect((await getHome(server.url, posted.cookie)).toast).toMatchObject({
        role: "alert",
        message: SOMETHING_WENT_WRONG_TOAST.message,
      });
    } finally {
      stub.setInsertBehaviour({ kind: "store" });
    }
  });

  it("answers 'Something went wrong' when Supabase is unreachable", async () => {
    const unreachable = await start({
      SUPABASE_URL: `http://127.0.0.1:${await freePort()}`,
      SUPABASE_ANON_KEY: stub.anonKey,
      DATA_DIR: scratchDir(),
    });
    expect(await subscribe(unreachable.url, "nobody-home@example.com")).toMatchObject({
      message: SOMETHING_WENT_WRONG_TOAST.message,
    });
    expect(unreachable.output()).toMatch(/Supabase sign-up of n\*\*\*@example\.com failed/);
  });
});
