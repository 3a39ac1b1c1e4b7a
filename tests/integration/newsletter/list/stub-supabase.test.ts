import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { describe, expect, it } from "vitest";
import { DEFAULT_LATEST_POST_TEXT, FAKE_ANON_KEY, type StubSupabase } from "../../../support/stub-supabase/stub";
import { elapsed, insertSubscriber, stubClient } from "../../../support/stub-supabase/client";
import { stubSupabaseForFile } from "../../../support/stub-supabase/per-file";

let stub: StubSupabase;
let supabase: SupabaseClient;

const client = (key?: string, options?: { dbTimeout?: number }) => stubClient(stub, key, options);
const subscribe = (email: string, db = supabase) => insertSubscriber(db, email);

stubSupabaseForFile((started) => {
  stub = started;
  supabase = client();
});

describe("the stand-in's PostgREST (the real migrations on PGlite): insert into newsletter_subscribers", () => {
  it("accepts a new address: no error, 201, no data (return=minimal is PostgREST's default)", async () => {
    const { error, status, data } = await subscribe("foo@example.com");
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toBeNull();
    expect(await stub.storedEmails()).toEqual(["foo@example.com"]);
    expect(stub.insertCalls).toBe(1);
    expect(stub.inserts).toEqual([{ email: "foo@example.com" }]);
  });

  it("receives exactly the headers supabase-js sends", async () => {
    await subscribe("foo@example.com");
    const [request] = stub.requests;
    expect(request).toMatchObject({ method: "POST", path: "/rest/v1/newsletter_subscribers", query: "" });
    expect(JSON.parse(request?.body ?? "")).toEqual({ email: "foo@example.com" });
    expect(request?.headers).toMatchObject({
      apikey: FAKE_ANON_KEY,
      authorization: `Bearer ${FAKE_ANON_KEY}`,
      "content-profile": "public",
      "content-type": "application/json",
    });
    expect(request?.headers["x-client-info"]).toMatch(/^supabase-js\/2\.\d+\.\d+/);
    // supabase-js 2.119 no longer adds Prefer to a plain insert; PostgREST then returns nothing.
    expect(request?.headers.prefer).toBeUndefined();
  });

  it("reports a case-insensitive duplicate as 23505 with status 409", async () => {
    expect((await subscribe("foo@example.com")).error).toBeNull();
    const { error, status } = await subscribe("Foo@Example.com");
    expect(status).toBe(409);
    // No details: Postgres names the key only to a role that may read the table, and anon may not.
    expect(error).toEqual({
      code: "23505",
      details: null,
      hint: null,
      message: 'duplicate key value violates unique constraint "newsletter_subscribers_email_lower_key"',
    });
    expect(await stub.storedEmails()).toEqual(["foo@example.com"]);
    expect(stub.inserts).toHaveLength(2);
  });

  it("treats seeded addresses as already subscribed", async () => {
    await stub.seedEmails("Seeded@Example.com");
    expect((await subscribe("seeded@example.com")).error?.code).toBe("23505");
  });

  it("sends a duplicate's error as JSON", async () => {
    await stub.seedEmails("foo@example.com");
    const response = await fetch(`${stub.url}/rest/v1/newsletter_subscribers`, {
      method: "POST",
      headers: { apikey: stub.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "foo@example.com" }),
    });
    expect(response.status).toBe(409);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("refuses what the migration refuses", async () => {
    const tooLong = await subscribe(`${"a".repeat(244)}@example.com`);
    expect(tooLong).toMatchObject({ status: 401, error: { code: "42501" } });
    const untrimmed = await subscribe(" foo@example.com");
    expect(untrimmed).toMatchObject({ status: 400, error: { code: "23514" } });
    const createdAt = await supabase
      .from("newsletter_subscribers")
      .insert({ email: "foo@example.com", created_at: "2000-01-01T00:00:00Z" });
    expect(createdAt).toMatchObject({ status: 401, error: { code: "42501" } });
    expect(await stub.storedEmails()).toEqual([]);
  });

  it("never lets a visitor read the list back", async () => {
    await stub.seedEmails("foo@example.com");
    const read = await supabase.from("newsletter_subscribers").select("*");
    expect(read).toMatchObject({ status: 401, data: null, error: { code: "42501" } });
    const echoed = await supabase.from("newsletter_subscribers").insert({ email: "bar@example.com" }).select();
    expect(echoed).toMatchObject({ status: 401, data: null, error: { code: "42501" } });
  });

  it("rejects a request signed with another key, as the gateway does", async () => {
    const { error, status } = await subscribe("foo@example.com", client("some-other-key"));
    expect(status).toBe(401);
    expect(error?.message).toBe("Invalid API key");
    expect(await stub.storedEmails()).toEqual([]);
  });

  it("answers a forced 500 with a PostgREST-shaped error", async () => {
    stub.setInsertBehaviour({ kind: "error" });
    const { error, status } = await subscribe("foo@example.com");
    expect(status).toBe(500);
    expect(error).toEqual({ code: "XX000", details: null, hint: null, message: "internal error" });
    expect(await stub.storedEmails()).toEqual([]);
    expect(stub.inserts).toEqual([{ email: "foo@example.com" }]);
  });

  it("answers a scripted error body and status", async () => {
    const body = { code: "57014", details: null, hint: null, message: "canceling statement due to statement timeout" };
    stub.setInsertBehaviour({ kind: "error", status: 503, body });
    const { error, status } = await subscribe("foo@example.com");
    expect(status).toBe(503);
    expect(error).toEqual(body);
  });

  it("turns a non-JSON gateway page into an error without a code", async () => {
    stub.setInsertBehaviour({ kind: "non-json" });
    const { error, status } = await subscribe("foo@example.com");
    expect(status).toBe(502);
    expect(error).not.toBeNull();
    expect(error?.code).toBeUndefined();
    expect(error?.message).toContain("502 Bad Gateway");
  });

  it("waits the scripted delay before answering", async () => {
    stub.setInsertBehaviour({ kind: "store", delayMs: 300 });
    const { result, ms } = await elapsed(() => subscribe("foo@example.com"));
    expect(result.error).toBeNull();
    expect(ms).toBeGreaterThanOrEqual(290);
  });

  it("hangs until the client gives up", async () => {
    stub.setInsertBehaviour({ kind: "hang" });
    const { result, ms } = await elapsed(() =>
      supabase
        .from("newsletter_subscribers")
        .insert({ email: "foo@example.com" })
        .abortSignal(AbortSignal.timeout(200)),
    );
    expect(ms).toBeLessThan(2_000);
    expect(result.status).toBe(0);
    expect(result.error?.message).toMatch(/TimeoutError|AbortError/);
    expect(stub.insertCalls).toBe(1);
  });

  it("hangs until the client-level db timeout fires", async () => {
    stub.setInsertBehaviour({ kind: "hang" });
    const { result, ms } = await elapsed(() => subscribe("foo@example.com", client(stub.anonKey, { dbTimeout: 200 })));
    expect(ms).toBeLessThan(2_000);
    expect(result.error?.hint).toBe("Request was aborted (timeout or manual cancellation)");
  });
});

describe("the stand-in's PostgREST (the real migrations on PGlite): the sign-up function while mail is off", () => {
  const consent = { page: "/", wording_version: "v1", wording: "the dialog's words" };
  const signUp = (address: string, db = supabase) => db.rpc("newsletter_sign_up_without_mail", { address, ...consent });

  it("answers 200 with the function's word as JSON, as PostgREST answers a function returning text", async () => {
    expect(await signUp("foo@example.com")).toMatchObject({ status: 200, error: null, data: "subscribed" });
    expect(await signUp("Foo@Example.com")).toMatchObject({ status: 200, error: null, data: "duplicate" });
    expect(await stub.storedEmails()).toEqual(["foo@example.com"]);
    expect(stub.callsOf("newsletter_sign_up_without_mail")).toBe(2);
    // Not an insert into the table: the stand-in counts those apart.
    expect(stub.insertCalls).toBe(0);
  });

  it("answers a function the database lacks with PostgREST's 404 PGRST202", async () => {
    const missing = await supabase.rpc("newsletter_sign_up_without_mail", { address: "foo@example.com" });
    expect(missing).toMatchObject({ status: 404, data: null, error: { code: "PGRST202" } });
    expect(await stub.storedEmails()).toEqual([]);
  });

  it("runs it behind the same scripted failures as the table", async () => {
    stub.setInsertBehaviour({ kind: "non-json", status: 200, body: "<html>captive portal</html>" });
    const portal = await signUp("foo@example.com");
    expect(portal.error).not.toBeNull();
    expect(portal.data).toBeNull();
    expect(await stub.storedEmails()).toEqual([]);
  });

  it("rejects a call signed with another key, as the gateway does", async () => {
    expect(await signUp("foo@example.com", client("some-other-key"))).toMatchObject({
      status: 401,
      error: { message: "Invalid API key" },
    });
    expect(await stub.storedEmails()).toEqual([]);
  });
});

describe("stub-supabase/main.ts", () => {
  it("runs under plain node with its database, prints one ready line, and stops on SIGTERM", async () => {
    const main = fileURLToPath(new URL("../../../support/stub-supabase/main.ts", import.meta.url));
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, STUB_PORT: "0", NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      // The ready line comes once PGlite has started and the migrations have run.
      await expect.poll(() => stdout, { timeout: 60_000 }).toMatch(/\n$/);
      const match = /^stub-supabase ready at (http:\/\/127\.0\.0\.1:\d+) anonKey=(\S+)\n$/.exec(stdout);
      expect(match, stdout).not.toBeNull();
      const [, url, key] = match ?? [];
      const remote = createClient(url ?? "", key ?? "", { auth: { persistSession: false } });
      expect(await remote.functions.invoke("get-latest-tweet")).toMatchObject({
        data: { text: DEFAULT_LATEST_POST_TEXT },
      });
      expect(await insertSubscriber(remote, "main@example.com")).toMatchObject({ status: 201, error: null });
      const state = await (await fetch(`${url}/__stub/state`)).json();
      expect(state).toMatchObject({ functionCalls: 1, storedEmails: ["main@example.com"] });
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    // Type stripping is stable in Node 24, so nothing (not even an ExperimentalWarning) is printed.
    expect(stderr).toBe("");
  }, 90_000);
});
