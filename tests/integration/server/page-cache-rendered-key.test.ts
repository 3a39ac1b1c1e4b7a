// The page cache's key comes from the render: the render of "/" for the cache says which (date, latest post) its page
// shows, and the cache files the page under that key. That internal header never reaches a visitor.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverHarness, type ServerProcess } from "../../support/production-server";
import { startStubSupabase, type StubSupabase } from "../../support/stub-supabase/stub";

const harness = serverHarness("page-cache-key-");
let stub: StubSupabase;
let server: ServerProcess;

beforeAll(async () => {
  stub = await startStubSupabase({ database: false });
  server = await harness.start({ SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey });
});
afterAll(async () => {
  await harness.cleanup();
  await stub?.close();
});

describe("the page cache, keyed by what the render used", () => {
  it("answers / from one render, shows the latest post, and never sends the render's key header", async () => {
    const pages = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${server.url}/`);
      pages.push({
        etag: response.headers.get("etag"),
        key: response.headers.get("x-home-page-key"),
        html: await response.text(),
      });
    }
    // One cached copy: the same validator every time (a render of its own would have a fresh nonce and body).
    expect(pages[1]!.etag).toBeTruthy();
    expect(pages[2]!.etag).toBe(pages[1]!.etag);
    expect(pages.map((page) => page.key)).toEqual([null, null, null]);
    expect(pages[2]!.html).toContain("Day one of the challenge");

    for (const [path, method] of [
      ["/", "HEAD"],
      ["/?utm_source=x", "GET"],
      ["/?x=1", "GET"],
      ["/unsubscribe", "GET"],
    ]) {
      const response = await fetch(`${server.url}${path}`, { method });
      await response.arrayBuffer();
      expect(response.headers.get("x-home-page-key"), `${method} ${path}`).toBeNull();
    }
  });
});
