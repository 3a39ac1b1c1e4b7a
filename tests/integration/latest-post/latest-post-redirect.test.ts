// The latest-post read against loopback fakes that answer with redirects: only the origin that was asked is ever
// requested (another host's post was shown as the owner's, and a redirect to a link-local address was
// followed).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_REDIRECTS } from "~/latest-post/same-origin-fetch.server";
import { callSocialSources } from "~/latest-post/social-call.server";
import { readSocialSources, type SocialSources } from "../../../supabase/functions/_shared/latest-post/fetch-latest";
import { expectedPost, OWNER_HANDLE } from "../../fixtures/latest-post/bluesky";
import { type FakeBluesky, startFakeBluesky } from "../../support/fakes/bluesky";

const TIMEOUT_MS = 2_000;
const FEED = `/xrpc/app.bsky.feed.getAuthorFeed?actor=${OWNER_HANDLE}&filter=posts_no_replies&limit=30`;

let asked: FakeBluesky;
let other: FakeBluesky;

beforeAll(async () => {
  [asked, other] = await Promise.all([startFakeBluesky(), startFakeBluesky()]);
});
afterAll(async () => {
  await Promise.all([asked?.close(), other?.close()]);
});
beforeEach(() => {
  asked.requests.length = 0;
  other.requests.length = 0;
  other.behave({ kind: "feed" });
});

function sources(): SocialSources {
  const read = readSocialSources({ LATEST_POST_BLUESKY: OWNER_HANDLE, BLUESKY_API_URL: asked.url });
  if (!read || "error" in read) throw new Error(`bad test sources: ${JSON.stringify(read)}`);
  return read;
}

async function readLogged(): Promise<{ post: unknown; lines: string[]; ms: number }> {
  const lines: string[] = [];
  const started = performance.now();
  const post = await callSocialSources(sources(), TIMEOUT_MS, (line) => lines.push(line));
  return { post, lines, ms: performance.now() - started };
}

describe("latest post: redirects", () => {
  it("a redirect to another origin is not followed: no post, one line naming the origin, the other never asked", async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      asked.behave({ kind: "redirect", status, location: `${other.url}${FEED}` });
      const { post, lines } = await readLogged();
      expect(post).toBeNull();
      expect(lines).toEqual([
        `Failed to fetch tweet: could not reach Bluesky (RedirectRefused: HTTP ${status} to another origin (${other.url}), not followed)`,
      ]);
    }
    expect(other.requests).toEqual([]);
  });

  it("a redirect to a link-local address is refused at once, without trying to connect", async () => {
    asked.behave({ kind: "redirect", location: "http://169.254.169.254/latest/meta-data/" });
    const { post, lines, ms } = await readLogged();
    expect(post).toBeNull();
    expect(lines[0]).toContain("to another origin (http://169.254.169.254), not followed");
    // Following it would have waited for the time limit (nothing answers there).
    expect(ms).toBeLessThan(TIMEOUT_MS / 2);
  });

  it("the same host on another port is another origin", async () => {
    const port = new URL(other.url).port;
    asked.behave({ kind: "redirect", location: `http://127.0.0.1:${port}${FEED}` });
    expect((await readLogged()).post).toBeNull();
    expect(other.requests).toEqual([]);
  });

  it("a redirect within the asked origin is followed, and the post read", async () => {
    asked.behave({ kind: "redirect", location: FEED, times: 1 });
    const { post, lines } = await readLogged();
    expect(lines).toEqual([]);
    expect(post).toEqual(expectedPost);
    expect(asked.requests).toHaveLength(2);
  });

  it(`more than ${MAX_REDIRECTS} redirects within the origin end the read`, async () => {
    asked.behave({ kind: "redirect", location: FEED });
    const { post, lines } = await readLogged();
    expect(post).toBeNull();
    expect(lines[0]).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect(asked.requests).toHaveLength(MAX_REDIRECTS + 1);
  });
});
