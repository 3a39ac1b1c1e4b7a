import { describe, expect, it } from "vitest";
import { parseResend, verifyResend } from "~/newsletter/webhooks/resend.server";
import { fixtureText, RESEND_SECRET, resendHeaders } from "../../../support/webhook-signing";

const NOW = new Date("2026-11-27T07:10:05Z");
const SECONDS = Math.floor(NOW.getTime() / 1000);
const headers = (values: Record<string, string>) => new Headers(values);

describe("Resend (Standard Webhooks) verification", () => {
  const body = fixtureText("resend", "bounced");

  it("takes the relay's own signature", () => {
    expect(verifyResend(headers(resendHeaders(body, SECONDS)), body, RESEND_SECRET, NOW)).toBeNull();
  });

  it("takes any one of several signatures (a secret being rotated)", () => {
    const signed = resendHeaders(body, SECONDS);
    const withOld = {
      ...signed,
      "svix-signature": `v1,${Buffer.alloc(32).toString("base64")} ${signed["svix-signature"]}`,
    };
    expect(verifyResend(headers(withOld), body, RESEND_SECRET, NOW)).toBeNull();
  });

  it("refuses a tampered body", () => {
    const signed = resendHeaders(body, SECONDS);
    const tampered = body.replace("gone@example.net", "someone@example.net");
    expect(verifyResend(headers(signed), tampered, RESEND_SECRET, NOW)).toBe("signature does not match");
  });

  it("refuses a signature made with another secret", () => {
    const other = `whsec_${Buffer.from("another-signing-key-0123456789abc").toString("base64")}`;
    const signed = resendHeaders(body, SECONDS, "msg_1", other);
    expect(verifyResend(headers(signed), body, RESEND_SECRET, NOW)).toBe("signature does not match");
  });

  it("refuses a timestamp more than five minutes away, either way, even correctly signed", () => {
    for (const seconds of [SECONDS - 301, SECONDS + 301]) {
      expect(verifyResend(headers(resendHeaders(body, seconds)), body, RESEND_SECRET, NOW)).toBe(
        "timestamp outside five minutes",
      );
    }
    expect(verifyResend(headers(resendHeaders(body, SECONDS - 299)), body, RESEND_SECRET, NOW)).toBeNull();
  });

  it("refuses a changed id or timestamp (both are signed)", () => {
    const signed = resendHeaders(body, SECONDS);
    expect(verifyResend(headers({ ...signed, "svix-id": "msg_other" }), body, RESEND_SECRET, NOW)).not.toBeNull();
    expect(
      verifyResend(headers({ ...signed, "svix-timestamp": String(SECONDS - 1) }), body, RESEND_SECRET, NOW),
    ).not.toBeNull();
  });

  it.each([
    ["no headers", {}],
    ["no signature", { "svix-id": "msg_1", "svix-timestamp": String(SECONDS) }],
    ["an unknown version", { "svix-id": "msg_1", "svix-timestamp": String(SECONDS), "svix-signature": "v2,abc" }],
    ["a dotted id", { "svix-id": "a.b", "svix-timestamp": String(SECONDS), "svix-signature": "v1,abc" }],
    ["a timestamp in words", { "svix-id": "msg_1", "svix-timestamp": "now", "svix-signature": "v1,abc" }],
  ])("refuses %s", (_label, values) => {
    expect(verifyResend(headers(values), body, RESEND_SECRET, NOW)).not.toBeNull();
  });
});

describe("Resend events", () => {
  it("a Permanent bounce suppresses as bounced, with the relay's words and time", () => {
    expect(parseResend(fixtureText("resend", "bounced"), "msg_1", NOW)).toEqual({
      ok: true,
      events: [
        {
          kind: "bounced",
          email: "gone@example.net",
          detail: "Resend Permanent: General: The recipient's email provider sent a hard bounce message.",
          eventId: "resend:msg_1:gone@example.net",
          at: new Date("2026-11-27T07:10:01.120Z"),
        },
      ],
    });
  });

  it("a Transient bounce is a soft bounce", () => {
    const parsed = parseResend(fixtureText("resend", "bounced-transient"), "msg_2", NOW);
    expect(parsed.ok && parsed.events.map((event) => [event.kind, event.email])).toEqual([
      ["soft-bounce", "full@example.net"],
    ]);
  });

  it("a spam complaint is complained", () => {
    const parsed = parseResend(fixtureText("resend", "complained"), "msg_3", NOW);
    expect(parsed.ok && parsed.events.map((event) => [event.kind, event.email])).toEqual([
      ["complained", "annoyed@example.org"],
    ]);
  });

  it("a delivery is nothing", () => {
    expect(parseResend(fixtureText("resend", "delivered"), "msg_4", NOW)).toEqual({ ok: true, events: [] });
  });

  it.each(["", "[]", "{}", '{"type": 3}', "not json"])("refuses %j as unreadable", (body) => {
    expect(parseResend(body, "msg_5", NOW).ok).toBe(false);
  });

  it("drops a recipient that is no address, and keeps the rest", () => {
    const body = JSON.stringify({
      type: "email.complained",
      created_at: "x",
      data: { to: ["not an address", "ok@example.com", 7] },
    });
    const parsed = parseResend(body, "msg_6", NOW);
    expect(parsed.ok && parsed.events.map((event) => [event.email, event.at])).toEqual([["ok@example.com", NOW]]);
  });
});
