import { describe, expect, it } from "vitest";
import { parseBrevo, verifyBrevo } from "~/newsletter/webhooks/brevo.server";
import { checkBasicAuth, sameSecret } from "~/newsletter/webhooks/credentials.server";
import { parsePostmark, verifyPostmark } from "~/newsletter/webhooks/postmark.server";
import { basicAuth, BREVO_AUTH, fixtureText, POSTMARK_AUTH } from "../../../support/webhook-signing";

const NOW = new Date("2026-11-27T09:30:00Z");
const withAuth = (value?: string) => new Headers(value === undefined ? {} : { Authorization: value });
const kinds = (parsed: ReturnType<typeof parsePostmark>) =>
  parsed.ok ? parsed.events.map((event) => [event.kind, event.email]) : parsed.reason;

describe("HTTP Basic credentials (Postmark, Brevo)", () => {
  it("takes the configured user:password, the password holding colons and spaces", () => {
    expect(verifyPostmark(withAuth(basicAuth(POSTMARK_AUTH)), POSTMARK_AUTH)).toBeNull();
    expect(verifyBrevo(withAuth(basicAuth(BREVO_AUTH)), BREVO_AUTH)).toBeNull();
    expect(checkBasicAuth(withAuth(basicAuth("u:a:b")), "u:a:b")).toBeNull();
  });

  it.each([
    ["none", undefined],
    ["a bearer token", "Bearer abc"],
    ["the wrong password", basicAuth("postmark-hook:wrong")],
    ["the wrong user", basicAuth("someone:c0rrect horse")],
    ["the password alone", basicAuth("c0rrect horse")],
    ["a prefix of the password", basicAuth("postmark-hook:c0rrect")],
    ["garbage", "Basic !!!"],
  ])("refuses %s", (_label, header) => {
    expect(verifyPostmark(withAuth(header), POSTMARK_AUTH)).not.toBeNull();
  });

  it("compares whole secrets only", () => {
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abc", "abcd")).toBe(false);
    expect(sameSecret("", "abc")).toBe(false);
  });
});

describe("Postmark records", () => {
  it("a HardBounce suppresses as bounced, with Postmark's details", () => {
    expect(parsePostmark(fixtureText("postmark", "hard-bounce"), NOW)).toEqual({
      ok: true,
      events: [
        {
          kind: "bounced",
          email: "gone@example.net",
          detail: "Postmark HardBounce: smtp;550 5.1.1 The email account that you tried to reach does not exist.",
          eventId: "postmark:Bounce:3956230791",
          at: new Date("2026-11-27T07:10:01.2735393Z"),
        },
      ],
    });
  });

  it("a SoftBounce is a soft bounce; a SpamComplaint is complained", () => {
    expect(kinds(parsePostmark(fixtureText("postmark", "soft-bounce"), NOW))).toEqual([
      ["soft-bounce", "full@example.net"],
    ]);
    expect(kinds(parsePostmark(fixtureText("postmark", "spam-complaint"), NOW))).toEqual([
      ["complained", "annoyed@example.org"],
    ]);
  });

  it("deliveries and opens are nothing", () => {
    expect(kinds(parsePostmark(fixtureText("postmark", "delivery"), NOW))).toEqual([]);
    expect(kinds(parsePostmark(fixtureText("postmark", "open"), NOW))).toEqual([]);
  });

  it.each([
    ["AutoResponder", []],
    ["Transient", [["soft-bounce", "gone@example.net"]]],
    ["BadEmailAddress", [["bounced", "gone@example.net"]]],
    ["Unsubscribe", []],
  ])("a %s bounce record: %j", (type, expected) => {
    const record = { ...JSON.parse(fixtureText("postmark", "hard-bounce")), Type: type };
    expect(kinds(parsePostmark(JSON.stringify(record), NOW))).toEqual(expected);
  });

  it("the same record twice has the same event id", () => {
    const once = parsePostmark(fixtureText("postmark", "hard-bounce"), NOW);
    const twice = parsePostmark(fixtureText("postmark", "hard-bounce"), new Date());
    expect(once.ok && twice.ok && once.events[0]!.eventId === twice.events[0]!.eventId).toBe(true);
  });

  // An object without a RecordType is Postmark's own test request (its "check" button): no event, and not refused.
  it("takes an object without a RecordType as no event", () => {
    expect(parsePostmark('{"Type":"HardBounce"}', NOW)).toMatchObject({ ok: true, events: [] });
  });

  it.each(["", "[]", "{"])("refuses %j as unreadable", (body) => {
    expect(parsePostmark(body, NOW).ok).toBe(false);
  });
});

describe("Brevo events", () => {
  it("hard_bounce and blocked suppress as bounced, soft_bounce is soft, spam is complained", () => {
    const events = (name: string) => kinds(parseBrevo(fixtureText("brevo", name), NOW));
    expect(events("hard-bounce")).toEqual([["bounced", "gone@example.net"]]);
    expect(events("blocked")).toEqual([["bounced", "blocked@example.net"]]);
    expect(events("soft-bounce")).toEqual([["soft-bounce", "full@example.net"]]);
    expect(events("spam")).toEqual([["complained", "annoyed@example.org"]]);
    expect(events("delivered")).toEqual([]);
  });

  it("keeps Brevo's reason and the event's own time", () => {
    const parsed = parseBrevo(fixtureText("brevo", "hard-bounce"), NOW);
    expect(parsed.ok && parsed.events[0]).toMatchObject({
      detail: "Brevo hard_bounce: 550 5.1.1 <gone@example.net>: Recipient address rejected: User unknown",
      at: new Date(1795763401 * 1000),
    });
  });

  it("the same event delivered twice has the same event id, even without Brevo's timestamps", () => {
    const record = JSON.parse(fixtureText("brevo", "soft-bounce"));
    for (const body of [
      JSON.stringify(record),
      JSON.stringify({ ...record, ts_event: undefined, ts_epoch: undefined }),
    ]) {
      const first = parseBrevo(body, NOW);
      const again = parseBrevo(body, new Date(NOW.getTime() + 600_000));
      expect(first.ok && again.ok && first.events[0]!.eventId === again.events[0]!.eventId).toBe(true);
    }
  });

  it("reads a batch (an array of events)", () => {
    const batch = `[${fixtureText("brevo", "hard-bounce")},${fixtureText("brevo", "delivered")},${fixtureText("brevo", "spam")}]`;
    expect(kinds(parseBrevo(batch, NOW))).toEqual([
      ["bounced", "gone@example.net"],
      ["complained", "annoyed@example.org"],
    ]);
  });

  it.each(["", "[]", "[1]", '{"email":"a@b.c"}', "nope"])("refuses %j as unreadable", (body) => {
    expect(parseBrevo(body, NOW).ok).toBe(false);
  });
});
