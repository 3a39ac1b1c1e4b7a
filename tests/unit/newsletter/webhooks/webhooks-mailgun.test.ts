import { describe, expect, it } from "vitest";
import { createTokenMemory, parseMailgun, verifyMailgun } from "~/newsletter/webhooks/mailgun.server";
import { MAILGUN_KEY, mailgunBody } from "../../../support/webhook-signing";

const NOW = new Date("2026-11-27T07:10:05Z");
const SECONDS = Math.floor(NOW.getTime() / 1000);
const kinds = (body: string) => {
  const parsed = parseMailgun(body, NOW);
  return parsed.ok ? parsed.events.map((event) => [event.kind, event.email]) : parsed.reason;
};

describe("Mailgun signature", () => {
  it("takes Mailgun's HMAC of timestamp and token", () => {
    expect(verifyMailgun(mailgunBody("permanent-failure", SECONDS), MAILGUN_KEY, NOW)).toBeNull();
  });

  it("refuses another key's signature", () => {
    const body = mailgunBody("permanent-failure", SECONDS, "another-key-0123456789");
    expect(verifyMailgun(body, MAILGUN_KEY, NOW)).toBe("signature does not match");
  });

  it("refuses a stale or future timestamp, even correctly signed", () => {
    expect(verifyMailgun(mailgunBody("permanent-failure", SECONDS - 301), MAILGUN_KEY, NOW)).toBe(
      "timestamp outside five minutes",
    );
    expect(verifyMailgun(mailgunBody("permanent-failure", SECONDS + 301), MAILGUN_KEY, NOW)).toBe(
      "timestamp outside five minutes",
    );
  });

  it("refuses a changed token (the signature covers it)", () => {
    const payload = JSON.parse(mailgunBody("permanent-failure", SECONDS));
    payload.signature.token = "another-token";
    expect(verifyMailgun(JSON.stringify(payload), MAILGUN_KEY, NOW)).toBe("signature does not match");
  });

  it("takes each signature once: a copy of one on another event is refused", () => {
    const tokens = createTokenMemory();
    const original = mailgunBody("permanent-failure", SECONDS);
    expect(verifyMailgun(original, MAILGUN_KEY, NOW, tokens)).toBeNull();
    const forged = JSON.parse(original);
    forged["event-data"].recipient = "victim@example.com";
    expect(verifyMailgun(JSON.stringify(forged), MAILGUN_KEY, NOW, tokens)).toBe("signature already used");
    // The same event signed afresh (Mailgun's retry) is taken.
    expect(verifyMailgun(mailgunBody("permanent-failure", SECONDS), MAILGUN_KEY, NOW, tokens)).toBeNull();
  });

  it("forgets tokens once they are too old to be signed fresh, and holds at most its capacity", () => {
    const tokens = createTokenMemory(3);
    expect(tokens.firstUse("a", NOW)).toBe(true);
    expect(tokens.firstUse("a", NOW)).toBe(false);
    expect(tokens.firstUse("a", new Date(NOW.getTime() + 11 * 60_000))).toBe(true);
    for (const token of ["b", "c", "d", "e"]) tokens.firstUse(token, NOW);
    expect(tokens.firstUse("b", NOW)).toBe(true);
  });

  it.each([
    ["no signature", "{}"],
    [
      "a signature of the wrong length",
      JSON.stringify({ signature: { timestamp: SECONDS, token: "t", signature: "ab" } }),
    ],
    [
      "a signature in letters",
      JSON.stringify({ signature: { timestamp: SECONDS, token: "t", signature: "z".repeat(64) } }),
    ],
    [
      "a timestamp in words",
      JSON.stringify({ signature: { timestamp: "now", token: "t", signature: "0".repeat(64) } }),
    ],
  ])("refuses %s", (_label, body) => {
    expect(verifyMailgun(body, MAILGUN_KEY, NOW)).not.toBeNull();
  });
});

describe("Mailgun events", () => {
  it("a permanent failure suppresses as bounced, with the code and the server's words", () => {
    const parsed = parseMailgun(mailgunBody("permanent-failure", SECONDS), NOW);
    expect(parsed.ok && parsed.events).toEqual([
      {
        kind: "bounced",
        email: "gone@example.net",
        detail: "Mailgun failed (bounce): 550: No Such User Here",
        eventId: "mailgun:failed:G9Bn5sl1TC6nu79C8C0bwg:gone@example.net",
        at: new Date(1795763401643.001),
      },
    ]);
  });

  it("a complaint is complained", () => {
    expect(kinds(mailgunBody("complained", SECONDS))).toEqual([["complained", "annoyed@example.org"]]);
  });

  it("a temporary failure Mailgun will retry is nothing yet; the one where it gave up is a soft bounce", () => {
    expect(kinds(mailgunBody("temporary-failure", SECONDS))).toEqual([]);
    expect(kinds(mailgunBody("temporary-gave-up", SECONDS))).toEqual([["soft-bounce", "full@example.net"]]);
  });

  it("a delivery is nothing", () => {
    expect(kinds(mailgunBody("delivered", SECONDS))).toEqual([]);
  });

  it("the same event delivered twice (a new token each time) has the same event id", () => {
    const first = parseMailgun(mailgunBody("permanent-failure", SECONDS), NOW);
    const again = parseMailgun(mailgunBody("permanent-failure", SECONDS + 60), NOW);
    expect(first.ok && again.ok && first.events[0]!.eventId === again.events[0]!.eventId).toBe(true);
  });

  it.each(['{"signature":{}}', '{"event-data":{"recipient":"a@b.c"}}', "[]"])("refuses %j as unreadable", (body) => {
    expect(parseMailgun(body, NOW).ok).toBe(false);
  });
});
