import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../../support/production-server";
import { startStubSupabase, type StubSupabase } from "../../support/stub-supabase/stub";

// Page views against the production server (`node server/index.mjs` on the last `npm run build`), with the real
// supabase-js client calling the stub over HTTP.
const CARD = 'aria-labelledby="latest-post-label"';

const startApp = (stub: StubSupabase, env: Record<string, string>) =>
  startServer({ env: { SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey, ...env } });

// How long a page takes is the bench's to measure (npm run bench); these tests check what the pages hold.
async function view(app: ServerProcess): Promise<{ html: string; status: number }> {
  const response = await fetch(`${app.url}/`);
  return { html: await response.text(), status: response.status };
}

const failureLines = (app: ServerProcess) => app.output().match(/Failed to fetch tweet[^\n]*/g) ?? [];

let stub: StubSupabase;

beforeAll(async () => {
  stub = await startStubSupabase({ database: false });
});

afterAll(async () => {
  await stub?.close();
});

describe("home page with the cache on (TTL 300 s)", () => {
  // Two servers, each with its own cold cache; they share the stub, so their tests run one after the other.
  let first: ServerProcess;
  let second: ServerProcess;

  beforeAll(async () => {
    [first, second] = await Promise.all([
      startApp(stub, { LATEST_POST_TTL_SECONDS: "300" }),
      startApp(stub, { LATEST_POST_TTL_SECONDS: "300" }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  beforeEach(async () => {
    await stub.reset();
  });

  it("two views inside the TTL make one function call, and both show the card", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Two views, one call." });
    const views = [await view(first), await view(first)];
    expect(views.map((page) => page.html.includes("Two views, one call."))).toEqual([true, true]);
    expect(stub.functionCalls).toBe(1);
  });

  it("50 concurrent views on a cold cache make one function call, and all show the card", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "Fifty views, one call.", delayMs: 100 });
    const views = await Promise.all(Array.from({ length: 50 }, () => view(second)));
    expect(views.filter((page) => page.status === 200 && page.html.includes("Fifty views, one call."))).toHaveLength(
      50,
    );
    expect(stub.functionCalls).toBe(1);
  });
});

describe("home page with the cache off (TTL 0), timeout 300 ms", () => {
  const TIMEOUT_MS = 300;
  const HARD_LIMIT_MS = 5_000;
  let app: ServerProcess;

  beforeAll(async () => {
    app = await startApp(stub, {
      LATEST_POST_TIMEOUT_MS: String(TIMEOUT_MS),
      LATEST_POST_HARD_LIMIT_MS: String(HARD_LIMIT_MS),
      LATEST_POST_TTL_SECONDS: "0",
      LATEST_POST_FAILURE_TTL_SECONDS: "0",
    });
  });

  afterAll(async () => {
    await app?.stop();
  });

  beforeEach(async () => {
    await stub.reset();
  });

  it("shows the card with the escaped text, the label and the social link, and never the anon key", async () => {
    stub.setFunctionBehaviour({ kind: "text", text: "<script>alert(1)</script> & co" });
    const { html, status } = await view(app);
    expect(status).toBe(200);
    const card = new RegExp(`<section [^>]*${CARD}[^>]*>.*?</section>`).exec(html)?.[0] ?? "";
    expect(card).toContain(">Latest thought<");
    expect(card).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co");
    expect(html).not.toContain("<script>alert(1)");
    expect(card).toMatch(/<a [^>]*href="https:\/\/x\.com\/your-handle"[^>]*>Follow on X</);
    expect(html).not.toContain(stub.anonKey);
    expect(stub.functionCalls).toBe(1);
  });

  it("two views make two calls when the cache is off", async () => {
    await view(app);
    await view(app);
    expect(stub.functionCalls).toBe(2);
  });

  it("renders without the card and logs one line when the function reports an error", async () => {
    const logged = failureLines(app).length;
    stub.setFunctionBehaviour({ kind: "data-error", error: "Rate limit exceeded" });
    const { html, status } = await view(app);
    expect(status).toBe(200);
    expect(html).not.toContain(CARD);
    expect(html).not.toContain("Latest thought");
    await expect
      .poll(() => failureLines(app).slice(logged))
      .toEqual(["Failed to fetch tweet: function reported an error: Rate limit exceeded"]);
  });

  it("renders without the card within the timeout when the function hangs", async () => {
    stub.setFunctionBehaviour({ kind: "hang" });
    const logged = failureLines(app).length;
    for (let run = 0; run < 5; run++) {
      const { html, status } = await view(app);
      expect(status).toBe(200);
      expect(html).not.toContain(CARD);
      expect(html).toContain("My Vibe Code Projects");
    }
    // The pages stopped waiting (all five came before the call's hard limit), the call did not: one call for all
    // five, failed only at its hard limit.
    expect(stub.functionCalls).toBe(1);
    expect(failureLines(app).length - logged).toBe(0);
    await expect.poll(() => failureLines(app).length - logged, { timeout: HARD_LIMIT_MS + 5_000 }).toBe(1);
    expect(failureLines(app).at(-1)).toBe(`Failed to fetch tweet: no answer within ${HARD_LIMIT_MS} ms`);
  });
});

describe("a slow function (3 s) with a 500 ms time box and the cache on", () => {
  let app: ServerProcess;

  beforeAll(async () => {
    app = await startApp(stub, { LATEST_POST_TIMEOUT_MS: "500", LATEST_POST_TTL_SECONDS: "300" });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("answers the first page within the time box without the card, and a page after the answer with it", async () => {
    await stub.reset();
    stub.setFunctionBehaviour({ kind: "text", text: "Slow but worth it.", delayMs: 3_000 });
    const first = await view(app);
    expect(first.status).toBe(200);
    // Without the card: the page did not wait for the 3 s answer.
    expect(first.html).not.toContain(CARD);
    // The call went on after the page stopped waiting; once it answers, the next view has the post.
    await expect
      .poll(async () => (await view(app)).html.includes("Slow but worth it."), { timeout: 10_000, interval: 500 })
      .toBe(true);
    expect(stub.functionCalls).toBe(1);
    expect(failureLines(app)).toEqual([]);
  });
});
