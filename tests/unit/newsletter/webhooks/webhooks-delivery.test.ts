import { describe, expect, it } from "vitest";
import { readBoundedBody } from "~/newsletter/webhooks/body.server";
import { createCredentialThrottle, FREE_FAILURES } from "~/newsletter/webhooks/credential-throttle";
import { deliverEvents, describeCounts } from "~/newsletter/webhooks/deliver.server";
import { createRecentEvents } from "~/newsletter/webhooks/recent-events";
import type { SinkOutcome, SuppressionSink } from "~/newsletter/webhooks/sink.server";
import type { RelayEvent } from "~/newsletter/webhooks/types";

/** A list of readers the way the interface promises it behaves: suppression is for good, unknown addresses untouched. */
function listOf(addresses: string[]) {
  const readers = new Map(addresses.map((email) => [email, { suppressed: null as string | null, soft: 0 }]));
  const calls: string[] = [];
  const sink: SuppressionSink = {
    async suppress(email, reason) {
      calls.push(`suppress ${email} ${reason}`);
      const reader = readers.get(email);
      if (!reader) return "unknown";
      if (reader.suppressed) return "already";
      reader.suppressed = reason;
      return "suppressed";
    },
    async softBounce(email) {
      calls.push(`soft ${email}`);
      const reader = readers.get(email);
      if (!reader) return "unknown";
      if (reader.suppressed) return "already";
      reader.soft += 1;
      if (reader.soft < 3) return "counted";
      reader.suppressed = "bounced";
      return "suppressed" satisfies SinkOutcome;
    },
  };
  return { sink, readers, calls };
}

const event = (kind: RelayEvent["kind"], email: string, eventId: string): RelayEvent => ({
  kind,
  email,
  detail: "relay words",
  eventId,
  at: new Date("2026-11-27T07:10:00Z"),
});

describe("deliverEvents", () => {
  it("hands each event to the list and counts what it did; an unknown address changes nothing", async () => {
    const { sink, readers } = listOf(["gone@example.net", "annoyed@example.org"]);
    const delivery = await deliverEvents(
      [
        event("bounced", "gone@example.net", "1"),
        event("complained", "annoyed@example.org", "2"),
        event("bounced", "stranger@example.com", "3"),
      ],
      sink,
      createRecentEvents(),
    );
    expect(delivery.ok && describeCounts(delivery.counts)).toBe(
      "1 bounced suppressed, 1 complained suppressed, 1 bounced unknown",
    );
    expect(readers.get("gone@example.net")!.suppressed).toBe("bounced");
    expect(readers.get("annoyed@example.org")!.suppressed).toBe("complained");
    expect(readers.has("stranger@example.com")).toBe(false);
  });

  it("the same event delivered twice reaches the list once: a soft bounce is not counted twice", async () => {
    const { sink, readers, calls } = listOf(["full@example.net"]);
    const recent = createRecentEvents();
    const soft = event("soft-bounce", "full@example.net", "ses:feedback-1:full@example.net");
    await deliverEvents([soft], sink, recent);
    const again = await deliverEvents([soft], sink, recent);
    expect(again.ok && describeCounts(again.counts)).toBe("1 soft-bounce repeated");
    expect(readers.get("full@example.net")!.soft).toBe(1);
    expect(calls).toEqual(["soft full@example.net"]);
  });

  it("a failing list stops the delivery, and the failed event is tried again next time", async () => {
    const { sink, calls } = listOf(["gone@example.net"]);
    const recent = createRecentEvents();
    const failing: SuppressionSink = { ...sink, suppress: () => Promise.reject(new Error("database is locked")) };
    const bounce = event("bounced", "gone@example.net", "1");
    const failed = await deliverEvents([bounce, event("complained", "gone@example.net", "2")], failing, recent);
    expect(failed.ok).toBe(false);
    const retried = await deliverEvents([bounce], sink, recent);
    expect(retried.ok && describeCounts(retried.counts)).toBe("1 bounced suppressed");
    expect(calls).toEqual(["suppress gone@example.net bounced"]);
  });

  it("says so when there was nothing to do", () => {
    expect(describeCounts({})).toBe("nothing to do");
  });
});

describe("createRecentEvents", () => {
  it("remembers the last ids up to its capacity, the oldest forgotten first", () => {
    const recent = createRecentEvents(2);
    const now = new Date();
    recent.markApplied("a", now);
    recent.markApplied("b", now);
    recent.markApplied("a", now);
    recent.markApplied("c", now);
    expect([recent.applied("a"), recent.applied("b"), recent.applied("c")]).toEqual([true, false, true]);
  });
});

describe("readBoundedBody", () => {
  const streamed = (chunks: Uint8Array[], pulled: { count: number }) =>
    new Request("http://localhost/webhooks/resend", {
      method: "POST",
      duplex: "half",
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks[pulled.count++];
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      }),
    } as RequestInit);

  it("reads a body within the limit as text", async () => {
    const request = new Request("http://localhost/", { method: "POST", body: '{"é":1}' });
    expect(await readBoundedBody(request, 1024)).toEqual({ kind: "text", text: '{"é":1}' });
  });

  it("refuses a body past the limit that declares no length, reading on only to drop the rest", async () => {
    const pulled = { count: 0 };
    const chunks = Array.from({ length: 8 }, () => new Uint8Array(1000));
    expect(await readBoundedBody(streamed(chunks, pulled), 2500)).toEqual({ kind: "too-large" });
  });

  it("refuses a declared length past the limit without keeping anything", async () => {
    const request = new Request("http://localhost/", {
      method: "POST",
      body: "x".repeat(3000),
      headers: { "Content-Length": "3000" },
    });
    expect(await readBoundedBody(request, 2500)).toEqual({ kind: "too-large" });
  });

  it("calls a body that is not UTF-8 what it is", async () => {
    const request = new Request("http://localhost/", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0xfe]) });
    expect(await readBoundedBody(request, 1024)).toEqual({ kind: "not-utf8" });
  });
});

describe("createCredentialThrottle", () => {
  it("lets a few failures pass, then locks the pair for twice as long each time; success starts it again", () => {
    const throttle = createCredentialThrottle();
    let now = 1_000_000;
    for (let i = 0; i < FREE_FAILURES - 1; i += 1) throttle.failed("brevo 1.2.3.4", now);
    expect(throttle.waitSeconds("brevo 1.2.3.4", now)).toBe(0);
    throttle.failed("brevo 1.2.3.4", now);
    expect(throttle.waitSeconds("brevo 1.2.3.4", now)).toBe(2);
    now += 2_000;
    throttle.failed("brevo 1.2.3.4", now);
    expect(throttle.waitSeconds("brevo 1.2.3.4", now)).toBe(4);
    expect(throttle.waitSeconds("postmark 1.2.3.4", now)).toBe(0);
    throttle.succeeded("brevo 1.2.3.4");
    expect(throttle.waitSeconds("brevo 1.2.3.4", now)).toBe(0);
  });
});
