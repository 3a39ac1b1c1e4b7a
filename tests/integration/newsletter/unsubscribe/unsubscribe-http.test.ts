// The unsubscribe page and its action over real HTTP, against the production server: with the embedded store (the
// token read from its SQLite file, as the owner's export gives it) and with Supabase (the stand-in's PostgREST RPC, the real migrations on PGlite).
import { rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { subscribe } from "../../../support/newsletter/http";
import { type ServerProcess, startServer, tempDir } from "../../../support/production-server";
import { startStubSupabase, type StubSupabase, UNSUBSCRIBE_FUNCTION } from "../../../support/stub-supabase/stub";

const UNKNOWN_TOKEN = "3f1e2d4c-5b6a-4789-8abc-def012345678";

const page = (server: ServerProcess, query: string) => fetch(`${server.url}/unsubscribe${query}`);
const post = (server: ServerProcess, query: string, body: Record<string, string>) =>
  fetch(`${server.url}/unsubscribe${query}`, { method: "POST", body: new URLSearchParams(body), redirect: "manual" });

/** A body of `size` bytes sent in 64 KiB chunks, without a Content-Length. */
function chunked(size: number): ReadableStream<Uint8Array> {
  let left = size;
  return new ReadableStream({
    pull(controller) {
      const chunk = Math.min(left, 64 * 1024);
      controller.enqueue(new Uint8Array(chunk).fill(0x62));
      left -= chunk;
      if (left === 0) controller.close();
    },
  });
}

/** The text of the page's heading and message. */
async function said(response: Response): Promise<string> {
  const html = await response.text();
  const heading = /<h1[^>]*>(.*?)<\/h1>/s.exec(html)?.[1] ?? "";
  const text = /<p[^>]*>(.*?)<\/p>/s.exec(html)?.[1] ?? "";
  return `${heading} | ${text}`.replace(/&#x27;/g, "'");
}

describe("unsubscribe, embedded store", () => {
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir("portfolio-unsubscribe-");
    server = await startServer({ env: { DATA_DIR: dataDir, SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0" } });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function tokenOf(email: string): string {
    const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME), { readOnly: true });
    try {
      const row = db
        .prepare("select unsubscribe_token as token from newsletter_subscribers where email = ?")
        .get(email);
      return (row as { token: string }).token;
    } finally {
      db.close();
    }
  }

  it("shows the page with its button for any token, noindex, never a 404", async () => {
    for (const query of [`?token=${UNKNOWN_TOKEN}`, "?token=garbage", "", "?token="]) {
      const response = await page(server, query);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-robots-tag")).toBe("noindex");
      const html = await response.text();
      expect(html).toContain('<meta name="robots" content="noindex"/>');
      expect(html).toContain(">Unsubscribe</h1>");
    }
    expect(await (await page(server, `?token=${UNKNOWN_TOKEN}`)).text()).toMatch(/<button[^>]*>Unsubscribe<\/button>/);
    expect(await said(await page(server, "?token=garbage"))).toContain("This unsubscribe link is incomplete");
  });

  it("removes the subscriber with the page's button, and an unknown or used token gets the very same answer", async () => {
    await subscribe(server.url, "leaving@example.com");
    const token = tokenOf("leaving@example.com");
    const done = await post(server, `?token=${token}`, { token });
    expect(done.status).toBe(200);
    const answer = await said(done);
    expect(answer).toContain("You're unsubscribed");
    expect(() => tokenOf("leaving@example.com")).toThrow();
    // Used again, or never issued: same status, same words.
    for (const again of [token, UNKNOWN_TOKEN]) {
      const response = await post(server, `?token=${again}`, { token: again });
      expect(response.status).toBe(200);
      expect(await said(response)).toBe(answer);
    }
    expect(server.output()).toContain("l***@example.com unsubscribed");
    expect(server.output()).not.toContain("leaving@example.com");
  });

  it("takes an RFC 8058 one-click post (List-Unsubscribe=One-Click, token in the URL, no cookie)", async () => {
    await subscribe(server.url, "oneclick@example.com");
    const token = tokenOf("oneclick@example.com");
    const response = await post(server, `?token=${token}`, { "List-Unsubscribe": "One-Click" });
    expect(response.status).toBe(200);
    expect(() => tokenOf("oneclick@example.com")).toThrow();
  });

  it("takes a one-click post with a known token in its URL whatever its body, even over 2 MiB", async () => {
    const big = 2 * 1024 * 1024 + 4096;
    const bodies: [string, BodyInit][] = [
      ["declared over 2 MiB", new Uint8Array(big).fill(0x61)],
      ["chunked over 2 MiB", chunked(big)],
      ["not a form", "List-Unsubscribe=One-Click&%%%"],
    ];
    for (const [label, body] of bodies) {
      const email = `big-${bodies.findIndex(([name]) => name === label)}@example.com`;
      await subscribe(server.url, email);
      const token = tokenOf(email);
      const response = await fetch(`${server.url}/unsubscribe?token=${token}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit);
      expect(response.status, label).toBe(200);
      expect(await said(response), label).toContain("You're unsubscribed");
      expect(() => tokenOf(email), label).toThrow();
    }
    // Over the bound without a token in the URL: still refused before anything reads it.
    const refused = await fetch(`${server.url}/unsubscribe`, { method: "POST", body: new Uint8Array(big) });
    expect(refused.status).toBe(413);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
  });

  it("lets someone who left subscribe again: 'Successfully subscribed!'", async () => {
    await subscribe(server.url, "again@example.com");
    const token = tokenOf("again@example.com");
    await post(server, `?token=${token}`, { token });
    const toast = await subscribe(server.url, "again@example.com");
    expect(toast?.message).toBe("Successfully subscribed!");
  });

  it("answers a post without a usable token with the incomplete-link page, changing nothing", async () => {
    const response = await post(server, "", { token: "not-a-token" });
    expect(response.status).toBe(400);
    expect(await said(response)).toContain("This unsubscribe link is incomplete");
  });
});

describe("unsubscribe: unknown tokens rate-limited like the sign-up", () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ env: { SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "1" } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("answers the second unknown token in a minute from one address with 429 and a clear message", async () => {
    const first = await post(server, `?token=${UNKNOWN_TOKEN}`, { token: UNKNOWN_TOKEN });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const second = await post(server, `?token=${UNKNOWN_TOKEN}`, { token: UNKNOWN_TOKEN });
    expect(second.status).toBe(429);
    expect(await said(second)).toContain("Too many requests. Please try again in a minute.");
  });
});

describe("unsubscribe, Supabase", () => {
  let stub: StubSupabase;
  let server: ServerProcess;

  beforeAll(async () => {
    stub = await startStubSupabase();
    server = await startServer({ env: { SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey } });
  }, 120_000); // PGlite's first start compiles its WebAssembly

  afterAll(async () => {
    await server?.stop();
    await stub?.close();
  });

  it("removes the row through the database function, with the anon key, on the server", async () => {
    await subscribe(server.url, "cloud@example.com");
    const token = (await stub.tokenOf("cloud@example.com"))!;
    const response = await post(server, `?token=${token}`, { token });
    expect(response.status).toBe(200);
    expect(await said(response)).toContain("You're unsubscribed");
    expect(await stub.storedEmails()).not.toContain("cloud@example.com");
    const call = stub.requests.find((request) => request.path === `/rest/v1/rpc/${UNSUBSCRIBE_FUNCTION}`);
    expect(call?.method).toBe("POST");
    expect(JSON.parse(call!.body)).toEqual({ token });
    expect(call?.headers.apikey).toBe(stub.anonKey);
  });

  it("says 'Something went wrong' (503) when Supabase fails, and the server keeps serving", async () => {
    stub.setInsertBehaviour({ kind: "error", status: 500 });
    const response = await post(server, `?token=${UNKNOWN_TOKEN}`, { token: UNKNOWN_TOKEN });
    expect(response.status).toBe(503);
    expect(await said(response)).toContain("Something went wrong. Please try again later.");
    await stub.reset();
    expect((await fetch(`${server.url}/`)).status).toBe(200);
  });
});
