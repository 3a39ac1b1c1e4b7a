// The webhook endpoint's action in process, over a receiver built as the composition root builds it, with a stand-in
// list: what the list is told, and what a failing list makes the relay hear.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { FREE_FAILURES } from "~/newsletter/webhooks/credential-throttle";
import type { createWebhookEndpoint } from "~/newsletter/webhooks/endpoint.server";
import { createReceiver } from "~/newsletter/webhooks/receive.server";
import type { SuppressionSink } from "~/newsletter/webhooks/sink.server";
import {
  basicAuth,
  fixtureText,
  MAILGUN_KEY,
  mailgunBody,
  POSTMARK_AUTH,
  RESEND_SECRET,
  resendHeaders,
} from "../../../support/webhook-signing";

let route: ReturnType<typeof createWebhookEndpoint>;
let wired: SuppressionSink | null = null;
const provideSuppressionSink = (sink: SuppressionSink | null) => void (wired = sink);

const dataDir = mkdtempSync(path.join(tmpdir(), "webhooks-route-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

beforeAll(async () => {
  // The environment is read once, when loaded; the receiver's journal lives in DATA_DIR.
  vi.stubEnv("DATA_DIR", dataDir);
  vi.stubEnv("RESEND_WEBHOOK_SECRET", RESEND_SECRET);
  vi.stubEnv("POSTMARK_WEBHOOK_AUTH", POSTMARK_AUTH);
  vi.stubEnv("MAILGUN_WEBHOOK_SIGNING_KEY", MAILGUN_KEY);
  const { env } = await import("~/utils/env.server");
  const { createWebhookEndpoint } = await import("~/newsletter/webhooks/endpoint.server");
  const receiver = createReceiver({ dataDir, sink: () => wired, warn: () => {} });
  route = createWebhookEndpoint({ settings: env, receiver: () => receiver });
});
afterEach(() => provideSuppressionSink(null));

function list(known: string[]) {
  const suppressed = new Map<string, string>();
  const softBounces: string[] = [];
  const sink: SuppressionSink = {
    async suppress(email, reason, detail) {
      if (!known.includes(email)) return "unknown";
      if (suppressed.has(email)) return "already";
      suppressed.set(email, `${reason}: ${detail}`);
      return "suppressed";
    },
    async softBounce(email) {
      if (!known.includes(email)) return "unknown";
      softBounces.push(email);
      return "counted";
    },
  };
  return { sink, suppressed, softBounces };
}

const post = (relay: string, body: string, headers: Record<string, string>, clientAddress = "127.0.0.1") =>
  route.action({
    request: new Request(`http://localhost/webhooks/${relay}`, { method: "POST", body, headers }),
    params: { relay },
    context: { clientAddress },
  } as ActionFunctionArgs);

const seconds = () => Math.floor(Date.now() / 1000);

describe("POST /webhooks/<relay> with the list provided", () => {
  it("a signed bounce suppresses its reader; the same delivery again changes nothing", async () => {
    const { sink, suppressed } = list(["gone@example.net"]);
    provideSuppressionSink(sink);
    const body = fixtureText("resend", "bounced");
    const headers = resendHeaders(body, seconds(), "msg_route_1");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect((await post("resend", body, headers)).status).toBe(200);
    expect((await post("resend", body, headers)).status).toBe(200);
    expect([...suppressed]).toEqual([
      [
        "gone@example.net",
        "bounced: Resend Permanent: General: The recipient's email provider sent a hard bounce message.",
      ],
    ]);
    expect(log.mock.calls.map((call) => String(call[0]))).toEqual([
      "Webhook resend: 1 bounced suppressed",
      "Webhook resend: 1 bounced repeated",
    ]);
    log.mockRestore();
  });

  it("a tampered copy changes nothing (401)", async () => {
    const { sink, suppressed } = list(["victim@example.com"]);
    provideSuppressionSink(sink);
    const body = fixtureText("resend", "bounced");
    const headers = resendHeaders(body, seconds(), "msg_route_2");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const forged = body.replace("gone@example.net", "victim@example.com");
    expect((await post("resend", forged, headers)).status).toBe(401);
    warn.mockRestore();
    expect(suppressed.size).toBe(0);
  });

  it("a complaint, a soft bounce given up on, and an address not on the list", async () => {
    const { sink, suppressed, softBounces } = list(["annoyed@example.org", "full@example.net"]);
    provideSuppressionSink(sink);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const auth = { Authorization: basicAuth(POSTMARK_AUTH) };
    expect((await post("postmark", fixtureText("postmark", "spam-complaint"), auth)).status).toBe(200);
    expect((await post("mailgun", mailgunBody("temporary-gave-up", seconds()), {})).status).toBe(200);
    expect((await post("postmark", fixtureText("postmark", "hard-bounce"), auth)).status).toBe(200);
    log.mockRestore();
    expect([...suppressed.keys()]).toEqual(["annoyed@example.org"]);
    expect(softBounces).toEqual(["full@example.net"]);
  });

  it("a failing list answers 503, so the relay retries", async () => {
    const failing: SuppressionSink = {
      suppress: () => Promise.reject(new Error("the store is closed")),
      softBounce: () => Promise.reject(new Error("the store is closed")),
    };
    provideSuppressionSink(failing);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    // An event this process has not handed on yet (the route remembers those it has, whatever the list said).
    const response = await post("postmark", fixtureText("postmark", "soft-bounce"), {
      Authorization: basicAuth(POSTMARK_AUTH),
    });
    expect(response.status).toBe(503);
    expect(String(warn.mock.calls[0]?.[0])).toContain("the store is closed");
    warn.mockRestore();
  });

  it("wrong credentials from one client are answered 429 after a few, others' unaffected", async () => {
    const { sink } = list([]);
    provideSuppressionSink(sink);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const body = fixtureText("postmark", "open");
    const guess = (client: string) =>
      post("postmark", body, { Authorization: basicAuth("postmark-hook:a guess") }, client);
    const answers: number[] = [];
    for (let i = 0; i < 8; i += 1) answers.push((await guess("203.0.113.9")).status);
    expect(answers.slice(0, FREE_FAILURES)).toEqual(Array(FREE_FAILURES).fill(401));
    expect(answers.slice(FREE_FAILURES)).toEqual(Array(8 - FREE_FAILURES).fill(429));
    const locked = await post("postmark", body, { Authorization: basicAuth(POSTMARK_AUTH) }, "203.0.113.9");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another client, the relay itself, is not slowed by the guesser.
    expect((await post("postmark", body, { Authorization: basicAuth(POSTMARK_AUTH) }, "198.51.100.4")).status).toBe(
      200,
    );
    warn.mockRestore();
  });

  it("a relay whose variable is unset is 404, to a post and to a GET; a set one's GET is 405", async () => {
    expect((await post("brevo", "{}", {})).status).toBe(404);
    const get = (relay: string) =>
      route.loader({
        request: new Request(`http://localhost/webhooks/${relay}`),
        params: { relay },
        context: { clientAddress: "127.0.0.1" },
      } as LoaderFunctionArgs);
    expect((await get("ses")).status).toBe(404);
    expect((await get("resend")).status).toBe(405);
  });
});
