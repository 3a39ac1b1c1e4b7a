import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openOutbox, type Outbox } from "~/mail/outbox.server";

let dir: string;
let outbox: Outbox;
const opened: Outbox[] = [];
const open = () => {
  const box = openOutbox(path.join(dir, "mail-outbox.sqlite"));
  opened.push(box);
  return box;
};
const T0 = Date.UTC(2026, 10, 24, 12);
const lease = { kinds: ["confirm", "update"] as const, limit: 10, leaseMs: 60_000 };

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "outbox-"));
  outbox = open();
});
afterEach(() => {
  for (const box of opened.splice(0)) box.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the outbox", () => {
  it("queues, claims once, and records a delivery", () => {
    const id = outbox.enqueue({ kind: "confirm", recipient: "a@example.com", payload: { page: "/" } }, T0);
    expect(id).toBeTypeOf("number");
    const [row] = outbox.claim({ ...lease, kinds: ["confirm"], owner: "one" }, T0);
    expect(row).toMatchObject({ id, state: "sending", claimedBy: "one", payload: { page: "/" }, attempts: 0 });
    // Another process sees nothing to take while the row is out.
    expect(open().claim({ ...lease, kinds: ["confirm"], owner: "two" }, T0)).toEqual([]);
    // Only the claim's owner records its outcome.
    outbox.recordSent(id!, "two", "250 nope", T0 + 1);
    expect(outbox.counts().sending).toBe(1);
    outbox.recordSent(id!, "one", "250 2.0.0 Ok: queued as ABC", T0 + 2);
    expect(outbox.rows()[0]).toMatchObject({ state: "sent", attempts: 1, sentAt: T0 + 2, claimedBy: null });
    expect(outbox.counts()).toEqual({ queued: 0, sending: 0, sent: 1, failed: 0, skipped: 0, uncertain: 0 });
  });

  it("queues an update once per reader, whatever the letter case", () => {
    const mails = ["A@x.example", "b@x.example", "a@X.example"].map((recipient) => ({
      kind: "update" as const,
      recipient,
      ref: "2026-11-24-hello",
    }));
    expect(outbox.enqueueMany(mails, T0)).toBe(2);
    expect(outbox.enqueue({ kind: "update", recipient: "b@x.example", ref: "2026-11-24-hello" }, T0)).toBeNull();
    expect(outbox.enqueue({ kind: "update", recipient: "b@x.example", ref: "2026-12-01-next" }, T0)).not.toBeNull();
    // Confirmation mails have no ref: each one queued is a new row.
    outbox.enqueue({ kind: "confirm", recipient: "b@x.example" }, T0);
    outbox.enqueue({ kind: "confirm", recipient: "b@x.example" }, T0);
    expect(outbox.counts({ kind: "confirm" }).queued).toBe(2);
    expect(outbox.counts({ ref: "2026-11-24-hello" }).queued).toBe(2);
  });

  it("holds a retry until it is due, and a release does not count an attempt", () => {
    const id = outbox.enqueue({ kind: "confirm", recipient: "a@example.com" }, T0)!;
    outbox.claim({ ...lease, owner: "one" }, T0);
    outbox.recordRetry(id, "one", "451 4.7.0 slow down", T0 + 10_000, T0);
    expect(outbox.claim({ ...lease, owner: "one" }, T0 + 9_999)).toEqual([]);
    expect(outbox.nextDue(["confirm"])).toBe(T0 + 10_000);
    const [again] = outbox.claim({ ...lease, owner: "one" }, T0 + 10_000);
    expect(again).toMatchObject({ attempts: 1, lastError: "451 4.7.0 slow down" });
    outbox.release(id, "one", "535 auth", T0 + 20_000, T0 + 10_000);
    expect(outbox.rows()[0]).toMatchObject({ state: "queued", attempts: 1, lastError: "535 auth" });
    outbox.claim({ ...lease, owner: "one" }, T0 + 20_000);
    outbox.recordFailed(id, "one", "550 no such user", T0 + 20_001);
    expect(outbox.rows()[0]).toMatchObject({ state: "failed", attempts: 2, sentAt: null });
  });

  it("turns a row whose process died mid-send into 'uncertain', never sending it again unasked", () => {
    outbox.enqueue({ kind: "update", recipient: "a@example.com", ref: "u" }, T0);
    outbox.claim({ ...lease, owner: "dead" }, T0);
    expect(outbox.markUncertain(T0 + 59_999)).toBe(0);
    // The next claim (by anyone) after the lease finds it uncertain, not queued.
    expect(open().claim({ ...lease, owner: "alive" }, T0 + 60_001)).toEqual([]);
    expect(outbox.rows()[0]).toMatchObject({ state: "uncertain" });
    expect(outbox.requeueUncertain({ ref: "u" }, T0 + 70_000)).toBe(1);
    expect(outbox.claim({ ...lease, owner: "alive" }, T0 + 70_000)).toHaveLength(1);
  });

  it("counts sends in the last hour for the cap, and erases an address's rows", () => {
    for (const n of [1, 2, 3]) outbox.enqueue({ kind: "confirm", recipient: `r${n}@example.com` }, T0);
    const claimed = outbox.claim({ ...lease, owner: "one" }, T0);
    outbox.recordSent(claimed[0]!.id, "one", "250", T0);
    outbox.recordSent(claimed[1]!.id, "one", "250", T0 + 30 * 60_000);
    expect(outbox.sentSince("confirm", T0 + 61 * 60_000 - 60 * 60_000)).toBe(2);
    expect(outbox.sentSince("confirm", T0 + 1)).toBe(2);
    expect(outbox.removeRecipient("R1@EXAMPLE.com")).toBe(1);
    // The address is gone; the row stays in its place, so what was sent is still counted.
    expect(outbox.rows().map((row) => row.recipient)).toEqual(["erased-1@invalid", "r2@example.com", "r3@example.com"]);
    expect(outbox.counts({ kind: "confirm" })).toMatchObject({ sent: 2, queued: 0, sending: 1 });
    expect(outbox.removeRecipient("r3@example.com")).toBe(1);
    // A mail not yet sent to an erased address never goes.
    expect(outbox.rows({ state: "skipped" })).toMatchObject([
      { recipient: "erased-3@invalid", lastError: "removed by the owner" },
    ]);
  });
});
