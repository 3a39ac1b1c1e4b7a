import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SOMETHING_WENT_WRONG_TOAST } from "~/newsletter/sign-up/messages";
import { openSupabaseList } from "~/newsletter/list/supabase/supabase-list.server";
import { subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { withoutMail } from "../../../support/newsletter/without-mail";

/**
 * Something between the app and PostgREST that answers a write with anything but PostgREST's 201: a redirect (an
 * `http://` SUPABASE_URL behind an HTTPS redirect), or a 200 of its own. A redirect followed as a GET gets `200 []`
 * here, as it would from PostgREST's table endpoint.
 */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

let server: http.Server;
let url: string;
let answerPost: Answer;
// Where the redirects point: this server again (loopback only), whose GET answers `200 []` as PostgREST's would.
const redirectTarget = () => `${url}/rest/v1/newsletter_subscribers?moved=1`;
const seen: { method: string; path: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? "", path: req.url ?? "" });
    req.resume();
    req.on("end", () => {
      // The insert gets the scripted answer; the page's latest-post call (the edge function) finds nothing.
      const answer: Answer = req.url?.startsWith("/functions/")
        ? { status: 404 }
        : req.method === "POST"
          ? answerPost
          : { status: 200, headers: { "content-type": "application/json" }, body: "[]" };
      res.writeHead(answer.status, answer.headers).end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  seen.length = 0;
  vi.restoreAllMocks();
});

function subscribeLogged(email: string) {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const store = openSupabaseList({ url, anonKey: "anon-key-of-the-test", timeoutMs: 2_000 });
  return {
    outcome: store.signUp(email, withoutMail()).then((r) => r.outcome),
    lines: () => errors.mock.calls.map((call) => call.map(String).join(" ")),
  };
}

describe("a Supabase write answered by something other than PostgREST", () => {
  it.each([301, 302, 303, 307, 308])(
    "is 'failed' on a %i redirect, never followed, with one line naming it",
    async (status) => {
      answerPost = { status, headers: { location: redirectTarget() } };
      const { outcome, lines } = subscribeLogged("ada.lovelace@example.com");
      expect(await outcome).toBe("failed");
      // The redirect is not followed: one request, the POST.
      expect(seen.map(({ method }) => method)).toEqual(["POST"]);
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toContain(`SUPABASE_URL redirects to "${redirectTarget()}"`);
      expect(lines()[0]).toContain("a***@example.com");
      expect(lines()[0]).not.toContain("ada.lovelace");
    },
  );

  it("is 'failed' on a redirect without a Location", async () => {
    answerPost = { status: 302 };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines().join("\n")).toMatch(/HTTP 302 without a Location/);
  });

  it.each([
    ["an empty 200", { status: 200 }],
    ["a 200 with an empty array", { status: 200, headers: { "content-type": "application/json" }, body: "[]" }],
    ["a 204", { status: 204 }],
    ["a 202", { status: 202 }],
  ])("is 'failed' on %s, with one line saying no 201 came", async (_label, answer) => {
    answerPost = answer;
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(new RegExp(`HTTP ${answer.status}\\b.*expected 201 Created`));
  });

  it("is 'subscribed' on PostgREST's 201 (the control)", async () => {
    answerPost = { status: 201, headers: { "content-range": "*/*" } };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("subscribed");
    expect(lines()).toEqual([]);
  });
});

describe("the visitor's answer when the write is redirected or answered empty (production server)", () => {
  const harness = serverHarness();
  afterAll(() => harness.cleanup());

  it("is 'Something went wrong', with the log line naming the redirect", async () => {
    const app = await harness.start({ SUPABASE_URL: url, SUPABASE_ANON_KEY: "anon-key-of-the-test" });
    answerPost = { status: 301, headers: { location: redirectTarget() } };
    const toast = await subscribe(app.url, "redirected@example.com");
    expect(toast).toMatchObject({ message: SOMETHING_WENT_WRONG_TOAST.message });
    await app.waitForOutput(`SUPABASE_URL redirects to "${redirectTarget()}"`);

    answerPost = { status: 200 };
    expect(await subscribe(app.url, "empty-answer@example.com")).toMatchObject({
      message: SOMETHING_WENT_WRONG_TOAST.message,
    });
    await app.waitForOutput("expected 201 Created");
    // Two inserts, none repeated or followed.
    expect(seen.filter(({ path }) => path.startsWith("/rest/v1/"))).toEqual([
      { method: "POST", path: "/rest/v1/newsletter_subscribers" },
      { method: "POST", path: "/rest/v1/newsletter_subscribers" },
    ]);
  }, 30_000);
});
