import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLatestPostSource, type LatestPostSourceOptions } from "~/latest-post/latest-post.server";
import {
  FUNCTION_NAME,
  startStubSupabase,
  type FunctionBehaviour,
  type StubSupabase,
} from "../../support/stub-supabase/stub";

// The real supabase-js client against the stub over real HTTP; only the clock is ours, where a test needs time.
let stub: StubSupabase;
let lines: string[];

const TIMEOUT_MS = 300;

function source(overrides: Partial<LatestPostSourceOptions> = {}) {
  return createLatestPostSource({
    supabaseUrl: stub.url,
    anonKey: stub.anonKey,
    timeoutMs: TIMEOUT_MS,
    ttlSeconds: 0,
    failureTtlSeconds: 0,
    log: (line) => lines.push(line),
    ...overrides,
  });
}

beforeAll(async () => {
  stub = await startStubSupabase({ database: false });
});

afterAll(async () => {
  await stub?.close();
});

beforeEach(async () => {
  await stub.reset();
  lines = [];
});

describe("latest post: one call of get-latest-tweet", () => {
  it("answers the function's text, with a POST and no payload", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Shipped the landing page today." });
    await expect(source().get()).resolves.toEqual({ text: "Shipped the landing page today." });
    expect(stub.functionCalls).toBe(1);
    const [request] = stub.requests;
    expect(request).toMatchObject({ method: "POST", path: `/functions/v1/${FUNCTION_NAME}`, body: "" });
    expect(lines).toEqual([]);
  });

  it("trims the text, and keeps markup as text (escaping is the page's job)", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "  <b>bold</b> & more \n" });
    await expect(source().get()).resolves.toEqual({ text: "<b>bold</b> & more" });
  });

  const failures: [string, FunctionBehaviour, RegExp][] = [
    ["data.error", { kind: "data-error", error: "Rate limit exceeded" }, /function reported an error: Rate limit/],
    ["HTTP 500", { kind: "http-error", status: 500 }, /HTTP 500/],
    ["a non-JSON 502 page", { kind: "non-json" }, /HTTP 502/],
    ["a non-JSON 200", { kind: "non-json", status: 200, contentType: "text/plain", body: "hi" }, /unexpected answer/],
    ["malformed JSON", { kind: "non-json", status: 200, contentType: "application/json", body: "{" }, /SyntaxError/],
    ['{"text": ""}', { kind: "json", body: { text: "" } }, /text is empty/],
    ['{"text": "   "}', { kind: "json", body: { text: " \n\t " } }, /text is empty/],
    ['{"text": 42}', { kind: "json", body: { text: 42 } }, /text is a number \(42\), expected a string/],
    ["{}", { kind: "json", body: {} }, /text is missing, expected a string/],
    ["null", { kind: "json", body: null }, /unexpected answer \(null\)/],
  ];

  for (const [name, behaviour, cause] of failures) {
    it(`answers null and logs one 'Failed to fetch tweet' line on ${name}`, async () => {
      stub.setFunctionBehaviour(behaviour);
      await expect(source().get()).resolves.toBeNull();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Failed to fetch tweet: /);
      expect(lines[0]).toMatch(cause);
      expect(lines[0]).not.toContain("\n");
      expect(lines[0]).not.toContain(stub.anonKey);
      expect(stub.functionCalls).toBe(1);
    });
  }

  it("stops waiting for a hanging function at the time box, and counts it failed only at the hard limit", async () => {
    stub.setFunctionBehaviour({ kind: "hang" });
    const hanging = source({ hardLimitMs: 4_000, failureTtlSeconds: 30 });
    const start = performance.now();
    await expect(hanging.get()).resolves.toBeNull();
    // The time box is 300 ms and the hard limit 4 s: answering well before the hard limit shows the page did not wait
    // for the call, with a margin a loaded 2-core machine keeps.
    expect(performance.now() - start).toBeLessThan(2_500);
    // The page stopped waiting: no failure yet, and the call is still the one under way.
    expect(lines).toEqual([]);
    expect(hanging.snapshot()).toEqual({ post: null, settled: false });
    await expect.poll(() => lines, { timeout: 10_000 }).toEqual(["Failed to fetch tweet: no answer within 4000 ms"]);
    expect(hanging.snapshot()).toEqual({ post: null, settled: true });
    expect(stub.functionCalls).toBe(1);
  });

  it("keeps a slow answer that came after the page stopped waiting: the next view shows it", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Worth the wait.", delayMs: 1_200 });
    const slow = source({ ttlSeconds: 300 });
    await expect(slow.get()).resolves.toBeNull();
    // A second view while the call is still under way waits on the same call.
    await expect(slow.get()).resolves.toBeNull();
    await expect.poll(() => slow.snapshot()).toEqual({ post: { text: "Worth the wait." }, settled: true });
    await expect(slow.get()).resolves.toEqual({ text: "Worth the wait." });
    expect(stub.functionCalls).toBe(1);
    expect(lines).toEqual([]);
  });

  it("gives up on a function that sends its headers but never finishes the body", async () => {
    // Headers arrive after 0 ms; the JSON body never ends because the declared length is never reached.
    const server = createServer((socket) => {
      socket.once("data", () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"text":');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const start = performance.now();
      await expect(source({ supabaseUrl: `http://127.0.0.1:${port}`, hardLimitMs: 600 }).get()).resolves.toBeNull();
      expect(performance.now() - start).toBeLessThan(2_000);
      await expect.poll(() => lines).toEqual(["Failed to fetch tweet: no answer within 600 ms"]);
    } finally {
      server.close();
    }
  });

  it("answers null and logs the network error when nothing listens", async () => {
    const closed = await startStubSupabase({ database: false });
    const url = closed.url;
    await closed.close();
    await expect(source({ supabaseUrl: url }).get()).resolves.toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Failed to fetch tweet: network error: .*ECONNREFUSED/);
  });

  it("makes no call and answers null, settled, when Supabase is not configured", async () => {
    const unconfigured = source({ supabaseUrl: undefined, anonKey: undefined });
    expect(unconfigured.snapshot()).toEqual({ post: null, settled: true });
    await expect(unconfigured.get()).resolves.toBeNull();
    expect(stub.requests).toEqual([]);
    expect(lines).toEqual([]);
  });
});

describe("latest post: cache over the real call", () => {
  it("serves a second view inside the TTL from memory: one call", async () => {
    const posts = source({ ttlSeconds: 300 });
    await expect(posts.get()).resolves.not.toBeNull();
    await expect(posts.get()).resolves.not.toBeNull();
    expect(posts.snapshot()).toMatchObject({ settled: true });
    expect(stub.functionCalls).toBe(1);
  });

  it("shares one call between 50 concurrent views on a cold cache", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Only once", delayMs: 50 });
    const posts = source({ ttlSeconds: 300 });
    const views = await Promise.all(Array.from({ length: 50 }, () => posts.get()));
    expect(views).toEqual(Array(50).fill({ text: "Only once" }));
    expect(stub.functionCalls).toBe(1);
  });

  it("shares one failing call too, logs it once, and remembers the failure", async () => {
    stub.setFunctionBehaviour({ kind: "http-error", status: 503, delayMs: 50 });
    const posts = source({ ttlSeconds: 300, failureTtlSeconds: 30 });
    const views = await Promise.all(Array.from({ length: 50 }, () => posts.get()));
    expect(views).toEqual(Array(50).fill(null));
    await expect(posts.get()).resolves.toBeNull();
    expect(posts.snapshot()).toEqual({ post: null, settled: true });
    expect(stub.functionCalls).toBe(1);
    expect(lines).toEqual(["Failed to fetch tweet: function answered HTTP 503"]);
  });

  it("keeps the good value after a failed refresh until it expires", async () => {
    let now = 0;
    const posts = source({ ttlSeconds: 300, failureTtlSeconds: 30, now: () => now });
    stub.setFunctionBehaviour({ kind: "text", text: "Good one" });
    await expect(posts.get()).resolves.toEqual({ text: "Good one" });

    stub.setFunctionBehaviour({ kind: "data-error", error: "upstream down" });
    now = 300_000; // stale: served at once, the refresh runs behind it
    await expect(posts.get()).resolves.toEqual({ text: "Good one" });
    await expect.poll(() => lines.length).toBe(1);
    expect(stub.functionCalls).toBe(2);

    now = 329_999; // failure remembered: no call, still the good value
    await expect(posts.get()).resolves.toEqual({ text: "Good one" });
    expect(posts.snapshot()).toEqual({ post: { text: "Good one" }, settled: true });
    expect(stub.functionCalls).toBe(2);

    now = 580_000; // the failure is forgotten: another background try, which fails again
    await expect(posts.get()).resolves.toEqual({ text: "Good one" });
    await expect.poll(() => lines.length).toBe(2);
    expect(stub.functionCalls).toBe(3);

    now = 600_000; // the good value expires (2 × TTL after it was fetched); the failure is still remembered
    await expect(posts.get()).resolves.toBeNull();
    expect(stub.functionCalls).toBe(3);
  });

  it("with TTL 0 calls the function on every view", async () => {
    const posts = source({ ttlSeconds: 0 });
    for (let view = 0; view < 3; view++) await posts.get();
    expect(stub.functionCalls).toBe(3);
  });
});
