import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SOMETHING_WENT_WRONG_TOAST } from "~/newsletter/sign-up/messages";
import { openSupabaseList } from "~/newsletter/list/supabase/supabase-list.server";
import { subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { withoutMail } from "../../../support/newsletter/without-mail";

/**
 * Something between the app and PostgREST that answers a write with anything but PostgREST's own answer: a redirect
 * (an `http://` SUPABASE_URL behind an HTTPS redirect), a 200 of its own, a captive portal's page, or nothing at all.
 * A redirect followed as a GET gets `200 []` here, as it would from PostgREST.
 */
type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

const SIGN_UP_PATH = "/rest/v1/rpc/newsletter_sign_up_without_mail";
const INSERT_PATH = "/rest/v1/newsletter_subscribers";
const JSON_TYPE = { "content-type": "application/json" };
/** PostgREST's answer for a function its schema cache lacks: a database without the migration. */
const NO_FUNCTION: Answer = {
  status: 404,
  headers: JSON_TYPE,
  body: JSON.stringify({
    code: "PGRST202",
    details: null,
    hint: "Perhaps you meant to call the function public.newsletter_sign_up",
    message:
      "Could not find the function public.newsletter_sign_up_without_mail(address, page, wording, wording_version) in the schema cache",
  }),
};

let server: http.Server;
let url: string;
/** What each POST path answers; a path without one answers 404. */
let answers: Record<string, Answer>;
// Where the redirects point: this server again (loopback only), whose GET answers `200 []` as PostgREST's would.
const redirectTarget = () => `${url}${SIGN_UP_PATH}?moved=1`;
const seen: { method: string; path: string; body: string }[] = [];
const hung = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const path = req.url ?? "";
      seen.push({ method: req.method ?? "", path, body });
      // The writes get the scripted answers; the page's latest-post call (the edge function) finds nothing.
      const answer: Answer = path.startsWith("/functions/")
        ? { status: 404 }
        : req.method === "POST"
          ? (answers[path] ?? { status: 404 })
          : { status: 200, headers: JSON_TYPE, body: "[]" };
      if (answer === "hang") {
        hung.add(res);
        return;
      }
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
  for (const res of hung) res.destroy();
  hung.clear();
  vi.restoreAllMocks();
});

function subscribeLogged(email: string) {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
  const store = openSupabaseList({ url, anonKey: "anon-key-of-the-test", timeoutMs: 2_000 });
  const lines = (spy: typeof errors) => () => spy.mock.calls.map((call) => call.map(String).join(" "));
  return {
    outcome: store.signUp(email, withoutMail(Date.now(), "/updates/2025-11-01-pricing")).then((r) => r.outcome),
    lines: lines(errors),
    warnings: lines(warnings),
  };
}

describe("a Supabase sign-up answered by something other than PostgREST", () => {
  it.each([301, 302, 303, 307, 308])(
    "is 'failed' on a %i redirect, never followed, with one line naming it",
    async (status) => {
      answers = { [SIGN_UP_PATH]: { status, headers: { location: redirectTarget() } } };
      const { outcome, lines } = subscribeLogged("ada.lovelace@example.com");
      expect(await outcome).toBe("failed");
      // The redirect is not followed: one request, the POST.
      expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([`POST ${SIGN_UP_PATH}`]);
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toContain(`SUPABASE_URL redirects to "${redirectTarget()}"`);
      expect(lines()[0]).toContain("a***@example.com");
      expect(lines()[0]).not.toContain("ada.lovelace");
    },
  );

  it("is 'failed' on a redirect without a Location", async () => {
    answers = { [SIGN_UP_PATH]: { status: 302 } };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines().join("\n")).toMatch(/HTTP 302 without a Location/);
  });

  it.each([
    ["an empty 200", { status: 200 }, "null"],
    ["a 200 with an empty array", { status: 200, headers: JSON_TYPE, body: "[]" }, "an array"],
    ["a 200 with another word", { status: 200, headers: JSON_TYPE, body: '"stored"' }, "a string of 6 characters"],
    ["a 201 with an empty body", { status: 201 }, "null"],
    ["a 204", { status: 204 }, "null"],
    ["a 202", { status: 202 }, "null"],
  ])("is 'failed' on %s, with one line saying no answer of the function came", async (_label, answer, got) => {
    answers = { [SIGN_UP_PATH]: answer };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(new RegExp(`HTTP ${answer.status}\\b.*expected one of the function's answers`));
    expect(lines()[0]).toContain(`got ${got}`);
    // Nothing else was tried: the insert is only for a database that lacks the function.
    expect(seen.map(({ path }) => path)).toEqual([SIGN_UP_PATH]);
  });

  it("is 'failed' on a captive portal's page (a 200 that is not JSON)", async () => {
    answers = {
      [SIGN_UP_PATH]: { status: 200, headers: { "content-type": "text/html" }, body: "<html>captive portal</html>" },
    };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(/Supabase sign-up of a\*\*\*@example\.com failed/);
  });

  it("is 'failed' when nothing answers, within the time box", async () => {
    answers = { [SIGN_UP_PATH]: "hang" };
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openSupabaseList({ url, anonKey: "anon-key-of-the-test", timeoutMs: 300 });
    const started = performance.now();
    expect((await store.signUp("ada@example.com", withoutMail())).outcome).toBe("failed");
    // Far below anything but the time box: the hung answer never comes.
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(errors.mock.calls).toHaveLength(1);
    expect(String(errors.mock.calls[0])).toMatch(/abort|timeout|time box/i);
  });

  it("is 'subscribed' on the function's own answer (the control), with the consent in the call", async () => {
    answers = { [SIGN_UP_PATH]: { status: 200, headers: JSON_TYPE, body: '"subscribed"' } };
    const { outcome, lines, warnings } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("subscribed");
    expect(lines()).toEqual([]);
    expect(warnings()).toEqual([]);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({
      address: "ada@example.com",
      page: "/updates/2025-11-01-pricing",
      wording_version: expect.stringMatching(/^[0-9a-f]{16}$/),
      wording: expect.stringContaining("\n"),
    });
  });

  it("is 'subscribed' on 'pending', with one line telling the owner the database waits for a confirmation", async () => {
    answers = { [SIGN_UP_PATH]: { status: 200, headers: JSON_TYPE, body: '"pending"' } };
    const { outcome, lines, warnings } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("subscribed");
    expect(lines()).toEqual([]);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/a\*\*\*@example\.com pending: the database holds a confirm_signing_key/);
  });
});

describe("a database without the sign-up function (the image deployed before `supabase db push`)", () => {
  it("takes the sign-up by the plain insert, with one line naming the migration to apply", async () => {
    answers = { [SIGN_UP_PATH]: NO_FUNCTION, [INSERT_PATH]: { status: 201, headers: { "content-range": "*/*" } } };
    const { outcome, lines, warnings } = subscribeLogged("ada.lovelace@example.com");
    expect(await outcome).toBe("subscribed");
    expect(seen.map(({ path }) => path)).toEqual([SIGN_UP_PATH, INSERT_PATH]);
    expect(JSON.parse(seen[1]!.body)).toEqual({ email: "ada.lovelace@example.com" });
    expect(lines()).toEqual([]);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("supabase/migrations/20261128300000_newsletter_sign_up_without_mail.sql");
    expect(warnings()[0]).toContain("a***@example.com");
    expect(warnings()[0]).not.toContain("ada.lovelace");
  });

  it.each([
    ["an empty 200", { status: 200 }, /HTTP 200\b.*expected 201 Created/],
    ["a redirect", { status: 307, headers: { location: "https://elsewhere.example/" } }, /redirects to/],
  ])("is 'failed' when the insert then gets %s", async (_label, answer, line) => {
    answers = { [SIGN_UP_PATH]: NO_FUNCTION, [INSERT_PATH]: answer };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(line);
  });

  it("is 'duplicate' when the insert says the address is there", async () => {
    const duplicate = { code: "23505", details: null, hint: null, message: "duplicate key value" };
    answers = {
      [SIGN_UP_PATH]: NO_FUNCTION,
      [INSERT_PATH]: { status: 409, headers: JSON_TYPE, body: JSON.stringify(duplicate) },
    };
    expect(await subscribeLogged("ada@example.com").outcome).toBe("duplicate");
  });

  it("never falls back on a 404 that is not PostgREST's missing function", async () => {
    answers = { [SIGN_UP_PATH]: { status: 404 }, [INSERT_PATH]: { status: 201 } };
    const { outcome, lines } = subscribeLogged("ada@example.com");
    expect(await outcome).toBe("failed");
    expect(seen.map(({ path }) => path)).toEqual([SIGN_UP_PATH]);
    expect(lines()).toHaveLength(1);
  });
});

describe("the visitor's answer when the write is redirected or answered empty (production server)", () => {
  const harness = serverHarness();
  afterAll(() => harness.cleanup());

  it("is 'Something went wrong', with the log line naming the redirect", async () => {
    const app = await harness.start({ SUPABASE_URL: url, SUPABASE_ANON_KEY: "anon-key-of-the-test" });
    answers = { [SIGN_UP_PATH]: { status: 301, headers: { location: redirectTarget() } } };
    const toast = await subscribe(app.url, "redirected@example.com");
    expect(toast).toMatchObject({ message: SOMETHING_WENT_WRONG_TOAST.message });
    await app.waitForOutput(`SUPABASE_URL redirects to "${redirectTarget()}"`);

    answers = { [SIGN_UP_PATH]: { status: 200 } };
    expect(await subscribe(app.url, "empty-answer@example.com")).toMatchObject({
      message: SOMETHING_WENT_WRONG_TOAST.message,
    });
    await app.waitForOutput("expected one of the function's answers");
    // Two calls of the function, none repeated or followed, and no insert.
    expect(
      seen.filter(({ path }) => path.startsWith("/rest/v1/")).map(({ method, path }) => `${method} ${path}`),
    ).toEqual([`POST ${SIGN_UP_PATH}`, `POST ${SIGN_UP_PATH}`]);
  }, 30_000);
});
