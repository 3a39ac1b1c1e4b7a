/** The engine's breaker (pure): repetition decides whose fault a refusal is, and a send on probation pauses early. */
import { describe, expect, it } from "vitest";
import { type BreakerStep, createBreaker, type Refusal } from "~/mail/breaker.server";
import type { Fault } from "~/mail/relay-answer";
import type { OutboxRow } from "~/mail/outbox-table.server";

let id = 0;
const refusal = (reason: string, fault: Fault): Refusal => ({
  row: { id: ++id, recipient: `r${id}@example.org` } as OutboxRow,
  verdict: { kind: "failed", reason, recipient: true, fault, answer: reason.slice(0, 7) },
  event: fault === "relay" ? null : { kind: "refused", reason },
});
const ids = (list: Refusal[]) => list.map((item) => item.row.id);
const quiet = (step: BreakerStep) => step.stop === null && step.record.length === 0 && step.release.length === 0;

describe("the breaker", () => {
  it("stops when the first readers are all refused the same way, even with a mailbox's code, recording none", () => {
    const breaker = createBreaker(3);
    expect(breaker.room(8)).toBe(1);
    const first = [refusal("550 5.1.1 no", "mailbox"), refusal("550 5.1.1 no", "mailbox")];
    for (const item of first) expect(quiet(breaker.refused(item))).toBe(true);
    const third = refusal("550 5.1.1 no", "mailbox");
    const step = breaker.refused(third);
    expect(step.stop).toMatch(/3 readers in a row the same way.*550 5\.1\.1 no.*nobody was suppressed/);
    expect(step.record).toEqual([]);
    expect(ids(step.release)).toEqual([...ids(first), third.row.id]);
  });

  it("makes held refusals the readers' own once a mail is delivered, and opens up to the whole batch", () => {
    const breaker = createBreaker(3);
    const held = [refusal("554 no", "unknown"), refusal("550 5.7.1 blocked", "relay")];
    for (const item of held) breaker.refused(item);
    const step = breaker.delivered();
    expect(step.stop).toBeNull();
    expect(ids(step.record)).toEqual(ids(held));
    expect(breaker.room(8)).toBe(8);
    // After a delivery, a mailbox's refusal is recorded at once; an unknown one is held, and the batch narrows.
    const own = refusal("550 5.1.1 no", "mailbox");
    expect(ids(breaker.refused(own).record)).toEqual([own.row.id]);
    expect(quiet(breaker.refused(refusal("550 no", "unknown")))).toBe(true);
    expect(breaker.room(8)).toBe(1);
  });

  it("takes different answers for different readers as each reader's own", () => {
    const breaker = createBreaker(3);
    breaker.refused(refusal("550 5.1.1 no", "mailbox"));
    breaker.refused(refusal("552 5.2.2 full", "mailbox"));
    const step = breaker.refused(refusal("550 nope", "unknown"));
    expect(step.stop).toBeNull();
    expect(step.record).toHaveLength(3);
  });

  it("pauses on the first readers' 4xx too, and not once the send has delivered", () => {
    const breaker = createBreaker(3);
    breaker.deferred("451 4.3", "451 4.3.0 later");
    breaker.deferred("451 4.3", "451 4.3.0 later");
    expect(breaker.deferred("451 4.3", "451 4.3.0 later").stop).toMatch(/451 4\.3\.0 later/);
    const proven = createBreaker(3);
    proven.delivered();
    for (let n = 0; n < 5; n++) expect(quiet(proven.deferred("451 4.3", "451 4.3.0 later"))).toBe(true);
  });

  it("at the end of a pass with nothing delivered, keeps a mailbox's refusal and gives the rest back", () => {
    const breaker = createBreaker(3);
    const own = refusal("550 5.1.1 no", "mailbox");
    const relay = refusal("554 5.7.1 Relay access denied", "relay");
    breaker.refused(own);
    breaker.refused(relay);
    const step = breaker.end();
    expect(step.stop).toMatch(/refused every reader it was asked for \(1\).*Relay access denied/);
    expect(ids(step.record)).toEqual([own.row.id]);
    expect(ids(step.release)).toEqual([relay.row.id]);
  });
});
