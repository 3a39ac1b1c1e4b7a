// The production server without Supabase, reading Bluesky or Mastodon itself (loopback fakes): the card in the
// first HTML, and one log line per failure.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedPost as blueskyPost, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";
import { expectedPost as mastodonPost } from "../../fixtures/latest-post/mastodon";
import { fakeSocialsForAll } from "../../support/fakes/socials";
import { type ServerProcess, startServer, startServerExpectingFailure } from "../../support/production-server";

// The cache is off so that every view asks the fake; the page waits at most 600 ms, the call 800 ms.
const FAST = {
  LATEST_POST_TTL_SECONDS: "0",
  LATEST_POST_FAILURE_TTL_SECONDS: "0",
  LATEST_POST_TIMEOUT_MS: "600",
  LATEST_POST_HARD_LIMIT_MS: "800",
};

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;");

async function card(app: ServerProcess): Promise<{ status: number; card: string }> {
  const response = await fetch(`${app.url}/`);
  const html = await response.text();
  return {
    status: response.status,
    card: /<section [^>]*aria-labelledby="latest-post-label"[^>]*>.*?<\/section>/s.exec(html)?.[0] ?? "",
  };
}

const failureLines = (app: ServerProcess) => app.output().match(/Failed to fetch tweet[^\n]*/g) ?? [];

const socials = fakeSocialsForAll();

describe("LATEST_POST_BLUESKY set, no Supabase", () => {
  let app: ServerProcess;
  beforeAll(async () => {
    app = await startServer({
      env: { LATEST_POST_BLUESKY: OWNER_HANDLE, BLUESKY_API_URL: socials.bluesky.url, ...FAST },
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("shows the owner's newest own post, full link restored, linking to its bsky.app address", async () => {
    socials.bluesky.behave({ kind: "feed" });
    const page = await card(app);
    expect(page.status).toBe(200);
    expect(page.card).toContain("Latest thought");
    expect(page.card).toContain(">On Bluesky</p>");
    expect(page.card).toContain(escapeHtml(blueskyPost.text));
    expect(page.card).toContain(`href="${blueskyPost.url}"`);
  });

  it.each([
    [
      "a 429",
      { kind: "rate-limited", resetInSeconds: 120 },
      /Bluesky is rate limiting \(HTTP 429\), retry in 1[12]\d s/,
    ],
    ["a 500", { kind: "status", status: 500 }, /Bluesky answered HTTP 500/],
    ["a hang", { kind: "hang" }, /Bluesky gave no answer within 800 ms/],
  ] as const)("on %s: no card, the page is whole, one log line", async (_name, behaviour, cause) => {
    socials.bluesky.behave(behaviour);
    const before = failureLines(app).length;
    const page = await card(app);
    expect(page).toEqual({ status: 200, card: "" });
    await app.waitForOutput(`Failed to fetch tweet`, 3_000);
    // The hang's line comes when the call's hard limit ends, after the page.
    await expect.poll(() => failureLines(app).length, { timeout: 3_000 }).toBe(before + 1);
    expect(failureLines(app).at(-1)).toMatch(cause);
  });
});

describe("LATEST_POST_MASTODON set, no Supabase", () => {
  let app: ServerProcess;
  beforeAll(async () => {
    app = await startServer({ env: { LATEST_POST_MASTODON: socials.mastodon.profileUrl, ...FAST } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("shows the newest own public post, its HTML as plain text, linking to the status", async () => {
    socials.mastodon.behave({ kind: "statuses" });
    const page = await card(app);
    expect(page.card).toContain(">On Mastodon</p>");
    expect(page.card).toContain(escapeHtml(mastodonPost.text));
    expect(page.card).not.toContain("<script");
    expect(page.card).not.toContain("<b>");
    expect(page.card).toContain(`href="${mastodonPost.url}"`);
  });

  it("an unknown account: no card, and a log line naming it", async () => {
    const other = await startServer({ env: { LATEST_POST_MASTODON: `${socials.mastodon.url}/@nobody`, ...FAST } });
    try {
      expect(await card(other)).toEqual({ status: 200, card: "" });
      await other.waitForOutput("Failed to fetch tweet: Mastodon has no account @nobody on http://127.0.0.1:", 3_000);
      expect(failureLines(other)).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });
});

describe("start-up", () => {
  it("refuses a source that does not parse, naming the variable", async () => {
    const { exit, output } = await startServerExpectingFailure({
      env: { LATEST_POST_MASTODON: "http://mastodon.social/@alex" },
    });
    expect(exit.code).not.toBe(0);
    expect(output()).toMatch(/LATEST_POST_MASTODON.*plain http only on loopback/);
  });
});
