/**
 * The engine's breaker: whose fault a refusal is, decided by repetition (pure). A refusal the answer alone cannot pin
 * on one reader (no enhanced code, or a relay's code at RCPT) is held, its row unrecorded, until the relay shows what
 * it does with another reader: a delivery makes the held refusals those readers' own; the same answer for the next
 * readers too makes it the relay's, and the send stops with every held row back in the queue, nobody suppressed.
 *
 * A send is on probation until its first delivery: its first readers go one at a time, and when the first few all
 * fail the same way (4xx or 5xx, whatever the code says, even a mailbox's 5.1.1) the send pauses before it has touched
 * the rest. One breaker lives for one pass of the engine (drain.server.ts), so every pass starts on probation.
 */
import type { SmtpVerdict } from "~/mail/classify.server";
import type { OutboxRow } from "~/mail/outbox-table.server";
import type { RecipientEvent } from "~/mail/recipient.server";
import { RELAY_FIX } from "~/mail/relay-answer";

/** How many readers failing the same way, with no delivery among them, make it the relay's answer. */
export const BREAKER_READERS = 3;

/** A refusal of one reader's mail, as classified, not yet recorded. */
export interface Refusal {
  row: OutboxRow;
  verdict: Extract<SmtpVerdict, { kind: "failed" }>;
  event: RecipientEvent | null;
}

/** What to do now: record these refusals as they are; when `stop` says why, put `release` back in the queue. */
export interface BreakerStep {
  record: Refusal[];
  release: Refusal[];
  stop: string | null;
}

export interface Breaker {
  /** How many rows the next claim may take: one at a time while on probation or while a refusal is held. */
  room(batch: number): number;
  /** A mail was handed over: the held refusals were their readers' own. */
  delivered(): BreakerStep;
  /** A 5xx (or a 4xx given up after 72 hours) for one reader. */
  refused(refusal: Refusal): BreakerStep;
  /** A 4xx for one reader ("later"): counts only while the send is on probation. */
  deferred(answer: string | undefined, reason: string): BreakerStep;
  /** The pass has nothing more to claim: what becomes of what is still held. */
  end(): BreakerStep;
  /** The pass stopped for another reason (a refused login): nothing held is decided, all of it goes back. */
  stopped(why: string): BreakerStep;
}

const NOTHING: BreakerStep = { record: [], release: [], stop: null };

export function createBreaker(readers = BREAKER_READERS): Breaker {
  let proven = false;
  let held: Refusal[] = [];
  /** The answers since the last delivery, in the order they came: their kind and words. */
  let streak: { answer: string; reason: string }[] = [];

  const recordHeld = (): BreakerStep => {
    const record = held;
    held = [];
    streak = [];
    return { record, release: [], stop: null };
  };
  const stop = (why: string): BreakerStep => {
    const release = held;
    held = [];
    streak = [];
    return { record: [], release, stop: why };
  };
  const judge = (): BreakerStep => {
    if (streak.length < readers) return NOTHING;
    const [first] = streak;
    if (first && streak.every((seen) => seen.answer === first.answer)) {
      return stop(
        `the relay answered ${readers} readers in a row the same way, with no mail delivered between: ` +
          `${first.reason}. That is the relay's answer, not theirs: nobody was suppressed for it, and the mails ` +
          `not sent stay queued. ${capitalised(RELAY_FIX)}.`,
      );
    }
    // Different answers for different readers: each is that reader's own.
    return recordHeld();
  };

  return {
    room: (batch) => (proven && held.length === 0 ? batch : 1),
    delivered() {
      proven = true;
      return recordHeld();
    },
    refused(refusal) {
      if (proven && refusal.verdict.fault === "mailbox") return { ...NOTHING, record: [refusal] };
      held.push(refusal);
      streak.push({ answer: refusal.verdict.answer ?? refusal.verdict.reason, reason: refusal.verdict.reason });
      return judge();
    },
    deferred(answer, reason) {
      if (proven) return NOTHING;
      streak.push({ answer: answer ?? reason, reason });
      return judge();
    },
    stopped: (why) => stop(why),
    end() {
      if (held.length === 0 || proven) return recordHeld();
      // Nothing delivered in this pass: a mailbox's own refusal stands, anything else is the relay's until a delivery
      // says otherwise.
      const own = held.filter((refusal) => refusal.verdict.fault === "mailbox");
      const others = held.filter((refusal) => refusal.verdict.fault !== "mailbox");
      if (others.length === 0) return recordHeld();
      held = others;
      return {
        ...stop(
          `the relay refused every reader it was asked for (${others.length}), with no mail delivered: ` +
            `${others[others.length - 1]!.verdict.reason}. Nobody was suppressed for it, and the mails not sent stay ` +
            `queued. ${capitalised(RELAY_FIX)}.`,
        ),
        record: own,
      };
    },
  };
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
