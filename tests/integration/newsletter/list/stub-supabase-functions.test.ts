// The stub Supabase's get-latest-tweet function and its control API, through supabase-js as the app calls them (its
// PostgREST and main.ts: stub-supabase.test.ts).
import { FunctionsFetchError, FunctionsHttpError, type SupabaseClient } from "@supabase/supabase-js";
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

describe("stub Functions: get-latest-tweet", () => {
  it("returns data.text by default", async () => {
    const { data, error } = await supabase.functions.invoke("get-latest-tweet");
    expect(error).toBeNull();
    expect(data).toEqual({ text: DEFAULT_LATEST_POST_TEXT });
    expect(stub.functionCalls).toBe(1);
  });

  it("receives the anon key as apikey and as the Bearer token", async () => {
    await supabase.functions.invoke("get-latest-tweet");
    const [request] = stub.requests;
    expect(request).toMatchObject({ method: "POST", path: "/functions/v1/get-latest-tweet", body: "" });
    expect(request?.headers).toMatchObject({ apikey: FAKE_ANON_KEY, authorization: `Bearer ${FAKE_ANON_KEY}` });
    expect(request?.headers["x-client-info"]).toMatch(/^supabase-js\/2\./);
    // No payload, so no Content-Type either.
    expect(request?.headers["content-type"]).toBeUndefined();
  });

  it("returns scripted text", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Hello from the stub" });
    const { data } = await supabase.functions.invoke("get-latest-tweet");
    expect(data).toEqual({ text: "Hello from the stub" });
  });

  it("passes a 200 {error} through as data.error with no client error", async () => {
    stub.setFunctionBehaviour({ kind: "data-error", error: "Rate limited" });
    const { data, error } = await supabase.functions.invoke("get-latest-tweet");
    expect(error).toBeNull();
    expect(data).toEqual({ error: "Rate limited" });
  });

  it.each([[{ text: "" }], [{ text: 42 }], [{}], [null]])("passes odd JSON %j through untouched", async (body) => {
    stub.setFunctionBehaviour({ kind: "json", body });
    const { data, error } = await supabase.functions.invoke("get-latest-tweet");
    expect(error).toBeNull();
    expect(data).toEqual(body);
  });

  it("turns a 500 into a FunctionsHttpError whose context is the Response", async () => {
    stub.setFunctionBehaviour({ kind: "http-error", body: { error: "boom" } });
    const { data, error, response } = await supabase.functions.invoke("get-latest-tweet");
    expect(data).toBeNull();
    expect(error).toBeInstanceOf(FunctionsHttpError);
    const context: unknown = error.context;
    expect(context).toBeInstanceOf(Response);
    expect((context as Response).status).toBe(500);
    expect(await (context as Response).json()).toEqual({ error: "boom" });
    expect(response).toBe(context);
  });

  it("turns a non-JSON 502 into a FunctionsHttpError", async () => {
    stub.setFunctionBehaviour({ kind: "non-json" });
    const { error } = await supabase.functions.invoke("get-latest-tweet");
    expect(error).toBeInstanceOf(FunctionsHttpError);
    const context = error.context as Response;
    expect(context.status).toBe(502);
    expect(await context.text()).toContain("502 Bad Gateway");
  });

  it("hands a non-JSON 200 body over as a string", async () => {
    stub.setFunctionBehaviour({ kind: "non-json", status: 200, body: "<p>hi</p>" });
    const { data, error } = await supabase.functions.invoke("get-latest-tweet");
    expect(error).toBeNull();
    expect(data).toBe("<p>hi</p>");
  });

  it("waits the scripted delay before answering", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "late", delayMs: 300 });
    const { result, ms } = await elapsed(() => supabase.functions.invoke("get-latest-tweet"));
    expect(result.data).toEqual({ text: "late" });
    expect(ms).toBeGreaterThanOrEqual(290);
  });

  it("hangs until invoke's own timeout option aborts the call", async () => {
    stub.setFunctionBehaviour({ kind: "hang" });
    const { result, ms } = await elapsed(() => supabase.functions.invoke("get-latest-tweet", { timeout: 200 }));
    expect(ms).toBeLessThan(2_000);
    expect(result.data).toBeNull();
    expect(result.error).toBeInstanceOf(FunctionsFetchError);
    expect(stub.functionCalls).toBe(1);
  });

  it("answers an unknown function with 404", async () => {
    const { error } = await supabase.functions.invoke("no-such-function");
    expect(error).toBeInstanceOf(FunctionsHttpError);
    expect((error.context as Response).status).toBe(404);
    expect(stub.functionCalls).toBe(0);
  });

  it("allows cross-origin calls from a browser", async () => {
    const response = await fetch(`${stub.url}/functions/v1/get-latest-tweet`, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, apikey, x-client-info",
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toBe("authorization, apikey, x-client-info");
    expect(stub.functionCalls).toBe(0);
    expect(stub.requests).toEqual([]);
  });
});

describe("stub control API", () => {
  const control = (path: string, body?: unknown) =>
    fetch(`${stub.url}/__stub/${path}`, {
      method: body === undefined && path === "state" ? "GET" : "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("scripts behaviours, seeds addresses, reports state and resets, without logging itself", async () => {
    expect((await control("function", { kind: "data-error", error: "nope" })).status).toBe(204);
    expect((await control("insert", { kind: "error", status: 500 })).status).toBe(204);
    expect((await supabase.functions.invoke("get-latest-tweet")).data).toEqual({ error: "nope" });
    expect((await subscribe("a@b.co")).status).toBe(500);

    expect((await control("insert", { kind: "store" })).status).toBe(204);
    expect((await control("emails", { emails: ["Old@Example.com"] })).status).toBe(204);
    expect((await subscribe("old@example.com")).error?.code).toBe("23505");

    const state = await (await control("state")).json();
    expect(state).toMatchObject({
      functionCalls: 1,
      insertCalls: 2,
      inserts: [{ email: "a@b.co" }, { email: "old@example.com" }],
      storedEmails: ["Old@Example.com"],
      insertBehaviour: { kind: "store" },
      functionBehaviour: { kind: "data-error", error: "nope" },
    });
    expect(state.requests).toHaveLength(3);

    expect((await control("reset")).status).toBe(204);
    expect(await stub.state()).toMatchObject({ functionCalls: 0, insertCalls: 0, storedEmails: [], requests: [] });
    expect((await supabase.functions.invoke("get-latest-tweet")).data).toEqual({ text: DEFAULT_LATEST_POST_TEXT });
  });

  it("rejects a malformed behaviour with 400 and keeps the old one", async () => {
    const response = await control("function", { kind: "explode" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "unknown function behaviour kind: explode" });
    expect((await control("insert", { kind: "error", delayMs: -1 })).status).toBe(400);
    expect((await control("emails", { emails: [1] })).status).toBe(400);
    expect((await stub.state()).functionBehaviour).toEqual({ kind: "text", text: DEFAULT_LATEST_POST_TEXT });
  });

  it("drops hung requests on reset so the client sees a network error", async () => {
    stub.setFunctionBehaviour({ kind: "hang" });
    const pending = supabase.functions.invoke("get-latest-tweet");
    await expect.poll(() => stub.functionCalls).toBe(1);
    await control("reset");
    const { error } = await pending;
    expect(error).toBeInstanceOf(FunctionsFetchError);
  });
});
