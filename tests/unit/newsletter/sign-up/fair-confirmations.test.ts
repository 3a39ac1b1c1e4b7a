/**
 * The fair limits on confirmation mails, counted from a real outbox file: per mailbox whatever the spelling, per
 * visitor, across a restart (the file reopened), and the fair order in which due confirmations are claimed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { CONFIRMATION_LIMITS, confirmationRoom } from "~/newsletter/sign-up/confirmation-limits";
import { confirmationGate, networkPseudonym, visitorPseudonym } from "~/newsletter/sign-up/fair-confirmations.server";
import { networkKey } from "~/newsletter/sign-up/network-key";

const HOUR = 60 * 60_000;
const T0 = Date.UTC(2026, 10, 27, 9);
let dir: string;
const opened: Outbox[] = [];
const open = () => {
  const box = openOutbox(path.join(dir, "mail-outbox.sqlite"));
  opened.push(box);
  return box;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "fair-"));
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  for (const box of opened.splice(0)) box.close();
  rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("confirmationRoom (pure)", () => {
  const limits = CONFIRMATION_LIMITS;
  it("fits below both limits, and names the limit reached first by the mailbox", () => {
    expect(confirmationRoom({ mailbox: 2, visitor: 9, network: null }, limits)).toEqual({ fits: true });
    expect(confirmationRoom({ mailbox: 3, visitor: 10, network: null }, limits)).toMatchObject({
      fits: false,
      limit: "mailbox",
      count: 3,
    });
    expect(confirmationRoom({ mailbox: 0, visitor: 10, network: null }, limits)).toMatchObject({
      fits: false,
      limit: "visitor",
      max: 10,
    });
  });
  it("does not limit an unknown visitor", () => {
    expect(confirmationRoom({ mailbox: 0, visitor: null, network: null }, limits)).toEqual({ fits: true });
  });
});

describe("the confirmation gate over the outbox", () => {
  it("queues at most 3 mails a day for one mailbox in any spelling, and the 4th again after 24 hours", () => {
    const outbox = open();
    const gate = confirmationGate(outbox);
    const spellings = ["victim@gmail.com", "v.ictim@gmail.com", "victim+1@googlemail.com", "VICTIM@gmail.com"];
    const queued = spellings.map((email, n) => gate.queue(email, `198.51.100.${n}`, T0 + n));
    expect(queued).toEqual([true, true, true, false]);
    expect(outbox.counts({ kind: "confirm" }).queued).toBe(3);
    expect(gate.room("other@gmail.com", "198.51.100.9", T0)).toEqual({ fits: true });
    expect(gate.room("victim@gmail.com", "198.51.100.9", T0 + 24 * HOUR - 1)).toMatchObject({ fits: false });
    expect(gate.queue("victim@gmail.com", "198.51.100.9", T0 + 24 * HOUR)).toBe(true);
  });

  it("queues at most 10 an hour for one visitor, others unaffected, and again after the hour", () => {
    const outbox = open();
    const gate = confirmationGate(outbox);
    const results = Array.from({ length: 15 }, (_, n) => gate.queue(`reader${n}@example.com`, "203.0.113.7", T0 + n));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(gate.queue("real@example.org", "192.0.2.1", T0 + 20)).toBe(true);
    expect(gate.queue("late@example.com", "203.0.113.7", T0 + HOUR)).toBe(true);
    // An unknown visitor (no client address) is never limited as one.
    const unknown = Array.from({ length: 12 }, (_, n) => gate.queue(`anon${n}@example.com`, "unknown", T0 + n));
    expect(unknown.every(Boolean)).toBe(true);
  });

  it("counts survive a restart: the counts are the outbox's rows", () => {
    const first = confirmationGate(open());
    for (let n = 0; n < 3; n++) expect(first.queue(`victim+${n}@gmail.com`, `192.0.2.${n}`, T0 + n)).toBe(true);
    opened.splice(0).forEach((box) => box.close());
    const again = confirmationGate(open());
    expect(again.room("v.i.c.t.i.m@gmail.com", "192.0.2.50", T0 + HOUR)).toMatchObject({
      fits: false,
      limit: "mailbox",
    });
  });

  it("keeps a pseudonym of the visitor, never the address, and logs masked addresses only", () => {
    const outbox = open();
    const gate = confirmationGate(outbox);
    gate.queue("victim@gmail.com", "203.0.113.7", T0);
    const [row] = outbox.rows();
    expect(row!.payload).toEqual({
      mailbox: "victim@gmail.com",
      visitor: visitorPseudonym("203.0.113.7"),
      network: networkPseudonym("203.0.113.7"),
    });
    expect(JSON.stringify(row!.payload)).not.toContain("203.0.113");
    for (let n = 1; n < 4; n++) gate.queue(`victim+${n}@gmail.com`, "203.0.113.7", T0 + n);
    const lines = vi.mocked(console.warn).mock.calls.map((call) => String(call[0]));
    expect(lines.join("\n")).toMatch(/held back .*the mailbox of v\*\*\*@gmail\.com had 3 in 24 h, at most 3/);
    expect(lines.join("\n")).not.toContain("victim");
  });
});

describe("claiming confirmations in a fair line", () => {
  it("puts a reader from another network ahead of one network's backlog, whatever its /64s", () => {
    const outbox = open();
    const gate = confirmationGate(outbox);
    // Eight visitors, each a /64 of its own, all in one /48: one network.
    for (let n = 0; n < 8; n++) {
      expect(gate.queue(`flood${n}@example.com`, `2001:db8:1:${n.toString(16)}::/64`, T0 + n)).toBe(true);
    }
    expect(gate.queue("reader@example.org", "198.51.100.7", T0 + 10)).toBe(true);
    const one = () =>
      outbox.claim({ kinds: ["confirm"], limit: 1, owner: "me", leaseMs: 60_000 }, T0 + 20).map((r) => r.recipient);
    expect(one()).toEqual(["flood0@example.com"]);
    expect(one()).toEqual(["reader@example.org"]);
    // The network's own mails still go when nobody else waits: their place is an order, not a delay.
    expect(one()).toEqual(["flood1@example.com"]);
  });

  it("holds one network to its share of the hour: 20 mails, then nothing stored until the hour has passed", () => {
    const outbox = open();
    const gate = confirmationGate(outbox);
    const queued = Array.from({ length: 150 }, (_, n) =>
      gate.queue(`v${n}@example.com`, `2001:db8:7:${n.toString(16)}::/64`, T0 + n),
    );
    expect(queued.filter(Boolean)).toHaveLength(CONFIRMATION_LIMITS.perNetwork);
    expect(gate.room("other@example.org", "2001:db8:7:ffff::/64", T0 + 200)).toMatchObject({
      fits: false,
      limit: "network",
      max: CONFIRMATION_LIMITS.perNetwork,
    });
    expect(gate.room("other@example.org", "2001:db8:8::/64", T0 + 200)).toEqual({ fits: true });
    expect(gate.room("other@example.org", "2001:db8:7:ffff::/64", T0 + HOUR + 200)).toEqual({ fits: true });
  });

  it("counts an IPv4 /24 as one network", () => {
    expect(networkKey("198.51.100.7")).toBe("198.51.100.0/24");
    expect(networkKey("198.51.100.250")).toBe("198.51.100.0/24");
    expect(networkKey("2001:db8:1:2::/64")).toBe("2001:db8:1::/48");
    expect(networkKey("unknown-thing")).toBe("unknown-thing");
    expect(networkPseudonym("198.51.100.7")).toBe(networkPseudonym("198.51.100.99"));
    expect(networkPseudonym("198.51.101.7")).not.toBe(networkPseudonym("198.51.100.7"));
  });

  it("leaves the order of update mails as it was: oldest due first", () => {
    const outbox = open();
    for (let n = 0; n < 3; n++) {
      outbox.enqueue({ kind: "update", recipient: `r${n}@example.com`, ref: "u1", payload: { visitor: "a" } }, T0 - n);
    }
    const rows = outbox.claim({ kinds: ["update"], limit: 3, owner: "me", leaseMs: 60_000 }, T0);
    expect(rows.map((r) => r.recipient)).toEqual(["r2@example.com", "r1@example.com", "r0@example.com"]);
  });
});
