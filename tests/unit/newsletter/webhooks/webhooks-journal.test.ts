// The webhooks' journal in a real SQLite file under a DATA_DIR, and the receiver over it, as the route uses them: an
// event applied before a restart is not applied again after it, and a Brevo report that arrives while the list cannot
// take it is kept (200, since Brevo drops a report answered 4xx or 5xx) and applied once the list can. The other relays
// retry a 5xx, so they are answered 503 instead.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deliverEvents } from "~/newsletter/webhooks/deliver.server";
import { openJournal } from "~/newsletter/webhooks/journal.server";
import { createReceiver, type Receiver } from "~/newsletter/webhooks/receive.server";
import type { SuppressionSink } from "~/newsletter/webhooks/sink.server";
import type { RelayEvent } from "~/newsletter/webhooks/types";

let dataDir: string;
const receivers: Receiver[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "webhook-journal-"));
  vi.spyOn(console, "log").mockImplementation(() => {});
});
afterEach(() => {
  for (const receiver of receivers.splice(0)) receiver.close();
  vi.restoreAllMocks();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A list that counts soft bounces (three in a row suppress) and can be made to fail, as a busy store does. */
function list() {
  const soft = new Map<string, number>();
  const suppressed = new Map<string, string>();
  let failing = false;
  const check = () => {
    if (failing) throw new Error("database is locked");
  };
  const sink: SuppressionSink = {
    async suppress(email, reason) {
      check();
      if (suppressed.has(email)) return "already";
      suppressed.set(email, reason);
      return "suppressed";
    },
    async softBounce(email) {
      check();
      soft.set(email, (soft.get(email) ?? 0) + 1);
      return "counted";
    },
  };
  return { sink, soft, suppressed, fail: (on: boolean) => (failing = on) };
}

const event = (kind: RelayEvent["kind"], email: string, eventId: string): RelayEvent => ({
  kind,
  email,
  detail: "Brevo soft_bounce: mailbox full",
  eventId,
  at: new Date("2026-11-27T07:10:00Z"),
});

describe("the journal of applied events", () => {
  it("two soft bounces retried after a restart stay two", async () => {
    const { sink, soft } = list();
    const events = [event("soft-bounce", "full@example.net", "a"), event("soft-bounce", "full@example.net", "b")];
    const first = openJournal(dataDir);
    await deliverEvents(events, sink, first);
    first.close();
    // A new process: the relay's retry of both deliveries.
    const second = openJournal(dataDir);
    const again = await deliverEvents(events, sink, second);
    second.close();
    expect(again.ok).toBe(true);
    expect(soft.get("full@example.net")).toBe(2);
  });
});

describe("the receiver, by each relay's retry rule", () => {
  const receiver = (sink: () => SuppressionSink | null) => {
    const made = createReceiver({ dataDir, sink, retryMs: 60_000, warn: () => {} });
    receivers.push(made);
    return made;
  };

  it("keeps a Brevo report the list cannot take (200) and applies it when the list can, even after a restart", async () => {
    const store = list();
    store.fail(true);
    const before = receiver(() => store.sink);
    const receipt = await before.receive("brevo", [event("bounced", "gone@example.net", "brevo:1")]);
    expect(receipt.status).toBe(200);
    expect(receipt.log).toContain("1 kept, to be applied when it can");
    expect(before.keptCount()).toBe(1);
    expect(store.suppressed.size).toBe(0);
    before.close();

    store.fail(false);
    const after = receiver(() => store.sink);
    expect(after.keptCount()).toBe(1);
    expect(await after.drainNow()).toBe(true);
    expect(store.suppressed.get("gone@example.net")).toBe("bounced");
    expect(after.keptCount()).toBe(0);
    // Brevo's own retry of the same report, had it come: applied already, nothing counted twice.
    const repeat = await after.receive("brevo", [event("bounced", "gone@example.net", "brevo:1")]);
    expect(repeat).toMatchObject({ status: 200, log: "1 bounced repeated" });
  });

  it("keeps a Brevo report while no list is wired at all, and a later report applies the kept one first", async () => {
    const store = list();
    let wired: SuppressionSink | null = null;
    const made = receiver(() => wired);
    expect((await made.receive("brevo", [event("complained", "annoyed@example.org", "brevo:2")])).status).toBe(200);
    wired = store.sink;
    const next = await made.receive("brevo", [event("bounced", "gone@example.net", "brevo:3")]);
    expect(next.status).toBe(200);
    expect([...store.suppressed]).toEqual([
      ["annoyed@example.org", "complained"],
      ["gone@example.net", "bounced"],
    ]);
  });

  it("applies at start what an earlier run kept, once the list is wired; without a list it waits", async () => {
    const store = list();
    const applied = new Promise<void>((resolve) => {
      const suppress = store.sink.suppress.bind(store.sink);
      store.sink.suppress = async (...args) => {
        const outcome = await suppress(...args);
        resolve();
        return outcome;
      };
    });
    const before = receiver(() => null);
    expect((await before.receive("brevo", [event("bounced", "gone@example.net", "brevo:4")])).status).toBe(200);
    before.close();

    const unwired = receiver(() => null);
    unwired.start();
    expect(unwired.keptCount()).toBe(1);
    unwired.close();

    const after = receiver(() => store.sink);
    after.start();
    await applied;
    await vi.waitFor(() => expect(after.keptCount()).toBe(0));
    expect(store.suppressed.get("gone@example.net")).toBe("bounced");
  });

  it.each(["postmark", "resend", "mailgun", "ses"] as const)(
    "answers %s 503 while the list cannot take its report, keeping nothing: it retries a 5xx",
    async (relay) => {
      const store = list();
      store.fail(true);
      const made = receiver(() => store.sink);
      const receipt = await made.receive(relay, [event("bounced", "gone@example.net", `${relay}:1`)]);
      expect(receipt.status).toBe(503);
      expect(made.keptCount()).toBe(0);
    },
  );
});
