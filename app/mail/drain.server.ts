/**
 * The engine: the one loop every mail goes through, whatever its kind. A pass claims the due rows (a batch of at most
 * `concurrency`, one write transaction synced to disk: see decision 018), and for each one: compose -> send ->
 * classify -> record. The server's runner (runner.server.ts) repeats passes in the background; the update command
 * repeats them until its update is out (drainUntil). Both run this pass, so a rule (pacing, the hourly cap, a log line
 * per failed attempt) is written once.
 *
 * The seams: what is sent is decided per kind by a Composer (handed in: this folder knows no newsletter), which turns
 * a claimed row into a message or answers `{ skip }` when there is nothing to send any more (the reader left); a
 * composer may write to the list (the hash of a token it puts in the mail) before the message goes. The relay's answer
 * is classified by classifySmtpError; `record` writes the outcome to the outbox and is the one place an outcome lands.
 *
 * Pacing: `pacer` spaces the starts of sends (from ratePerSecond when none is given; 0: unpaced); `maxPerHour` caps a
 * kind over a rolling hour, the rest waiting in the outbox. A "stop" verdict (refused login or sender, an account-wide
 * refusal) ends the pass with every claimed row released, the attempt not counted, and `stopped` saying why; so does
 * the breaker (breaker.server.ts) when readers in a row are refused the same way. Only a refusal about a reader's
 * mailbox reaches `onRecipient` as one.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { classifySmtpError } from "~/mail/classify.server";
import { nextRetryDelayMs } from "~/mail/retry-delay.server";
import type { MailKind, Outbox, OutboxRow } from "~/mail/outbox.server";
import { createPacer, type Pacer, pause } from "~/mail/pacer.server";
import type { MailMessage, MailTransport } from "~/mail/transport.server";
import { type RecipientHook, recipientVerdict, tellRecipientHook } from "~/mail/recipient.server";
import { type BreakerStep, createBreaker, type Refusal } from "~/mail/breaker.server";
import { logAttempt, logCapped } from "~/mail/drain-log.server";

export type ComposeResult = { message: MailMessage } | { skip: string };
export type Composer = (row: OutboxRow) => ComposeResult | Promise<ComposeResult>;

/** What became of one attempt: the outcome the outbox records ("stopped": released, the attempt not counted). */
export type MailOutcome = "sent" | "retry" | "failed" | "skipped" | "uncertain" | "stopped";

export interface DrainOptions {
  outbox: Outbox;
  transport: MailTransport;
  composers: Partial<Record<MailKind, Composer>>;
  /** The kinds this pass takes (default: every kind it has a composer for). */
  kinds?: MailKind[];
  /** Only the rows of this ref (one update's), when given: a sender that no longer holds the send lock. */
  ref?: string;
  /** Who holds claimed rows (default: host, pid and a random part). */
  owner?: string;
  /** How long a claimed row is ours: longer than one attempt can take (the transport's timeouts bound it). */
  leaseMs?: number;
  /** Sends in flight at once, and rows claimed at once: the most that can be uncertain if the process dies. */
  concurrency?: number;
  ratePerSecond?: number;
  /** A pacer kept across passes (the command's and the runner's own); made from ratePerSecond otherwise. */
  pacer?: Pacer;
  maxPerHour?: Partial<Record<MailKind, number>>;
  /** How long a queued mail of a kind stays worth sending (a confirmation: as long as its sign-up stays pending). */
  expireAfterMs?: Partial<Record<MailKind, number>>;
  /** Called after each attempt (progress bars, tests). */
  onAttempt?: (row: OutboxRow, outcome: MailOutcome, detail: string) => void;
  /** Told when a recipient was refused, given up on, or reached (the list suppresses or counts: recipient.server.ts). */
  onRecipient?: RecipientHook;
  now?: () => number;
}

export interface DrainPass {
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
  /** Handed over with no answer (see classify.server.ts): not sent again unless the owner asks. */
  uncertain: number;
  /** Set when the relay refused the sending itself (login, sender): the relay's words. */
  stopped: string | null;
  /** Whether an hourly cap held rows back in this pass. */
  capped: boolean;
}

export const DEFAULT_LEASE_MS = 2 * 60_000;
/** Why an expired mail was skipped, as the outbox keeps it. */
export const EXPIRED = "its sign-up expired before the mail could go";
const HOUR_MS = 60 * 60_000;

export const newOwner = (prefix = "") => `${prefix}${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

const COUNTED = {
  sent: "sent",
  retry: "retried",
  failed: "failed",
  skipped: "skipped",
  uncertain: "uncertain",
} as const;

/** Sends every row due now (within the caps), then resolves with what happened. */
export async function drainDue(options: DrainOptions, signal?: AbortSignal): Promise<DrainPass> {
  const now = options.now ?? Date.now;
  const owner = options.owner ?? newOwner();
  const kinds = options.kinds ?? (Object.keys(options.composers) as MailKind[]);
  const batch = Math.max(1, options.concurrency ?? 1);
  const nextStart = options.pacer ?? createPacer(options.ratePerSecond ?? 0, batch, now);
  const pass: DrainPass = {
    sent: 0,
    retried: 0,
    failed: 0,
    skipped: 0,
    uncertain: 0,
    stopped: null,
    capped: false,
  };
  const { outbox } = options;
  const breaker = createBreaker();

  await dropExpired(options, kinds, now, signal);

  const claim = (): OutboxRow[] => {
    const rows: OutboxRow[] = [];
    const wanted = breaker.room(batch);
    for (const kind of kinds) {
      let room = wanted - rows.length;
      const cap = options.maxPerHour?.[kind];
      if (cap !== undefined) {
        const sentInHour = outbox.sentSince(kind, now() - HOUR_MS);
        const left = cap - sentInHour;
        if (left < room && outbox.nextDue([kind]) !== null) {
          pass.capped = true;
          if (left <= 0) logCapped(outbox, kind, cap, sentInHour);
        }
        room = Math.min(room, left);
      }
      if (room <= 0) continue;
      const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
      rows.push(...outbox.claim({ kinds: [kind], limit: room, owner, leaseMs, ref: options.ref }, now()));
    }
    return rows;
  };

  const record = (row: OutboxRow, kind: Exclude<MailOutcome, "stopped">, detail: string) => {
    recordOutcome(outbox, owner, row, kind, detail, now);
    pass[COUNTED[kind]] += 1;
    options.onAttempt?.(row, kind, detail);
  };
  const apply = async (step: BreakerStep) => {
    for (const { row, verdict, event } of step.record) {
      record(row, "failed", verdict.reason);
      await tellRecipientHook(options.onRecipient, row, event);
    }
    if (step.stop === null) return;
    pass.stopped ??= step.stop;
    // Behind every other due mail: the next pass asks the relay about other readers first.
    for (const { row, verdict } of step.release) outbox.releaseToBack(row.id, owner, verdict.reason, now());
  };

  const one = async (row: OutboxRow) => {
    const wait = nextStart();
    if (wait > 0) await pause(wait, signal);
    // Claimed, never started: back to the queue as it was (nothing left, nothing to be uncertain about).
    if (pass.stopped !== null || signal?.aborted) {
      return outbox.release(row.id, owner, "not sent yet", row.nextAttemptAt, now());
    }
    const result = await attempt(options, row, now);
    switch (result.kind) {
      case "sent":
        record(row, "sent", result.detail);
        await tellRecipientHook(options.onRecipient, row, { kind: "delivered" });
        return apply(breaker.delivered());
      case "refused":
        return apply(breaker.refused(result.refusal));
      case "stopped":
        // A stop counts as no attempt of this mail: its row goes back to the queue as it was.
        recordOutcome(outbox, owner, row, "stopped", result.detail, now);
        pass.stopped ??= result.detail;
        options.onAttempt?.(row, "stopped", result.detail);
        return;
      case "retry":
        record(row, "retry", result.detail);
        if (result.answer !== undefined) await apply(breaker.deferred(result.answer, result.detail));
        return;
      default:
        return record(row, result.kind, result.detail);
    }
  };

  while (pass.stopped === null && !signal?.aborted) {
    // Between claims the event loop runs: requests, timers and a shutdown never wait for the whole queue.
    await new Promise((resolve) => setImmediate(resolve));
    const rows = claim();
    if (rows.length === 0) break;
    await Promise.all(rows.map(one));
  }
  // Whatever is still held is decided now; a stop puts it back in the queue.
  await apply(pass.stopped === null ? breaker.end() : breaker.stopped(pass.stopped));
  return pass;
}

/** Rows of a set-based statement between two turns of the event loop: a few milliseconds of work each. */
const EXPIRE_CHUNK = 500;

/**
 * Mails nobody can want any more (their sign-up expired) leave the queue a set at a time, never one claim each, and
 * the event loop runs between two sets: a week-old flood of any size never holds a request back.
 */
async function dropExpired(options: DrainOptions, kinds: MailKind[], now: () => number, signal?: AbortSignal) {
  for (const kind of kinds) {
    const lifetime = options.expireAfterMs?.[kind];
    if (lifetime === undefined) continue;
    while (!signal?.aborted && options.outbox.dropExpired(kind, now() - lifetime, EXPIRED, EXPIRE_CHUNK, now()) > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

type Attempt =
  | { kind: "sent" | "skipped" | "uncertain" | "stopped" | "failed"; detail: string }
  | { kind: "retry"; detail: string; answer?: string }
  | { kind: "refused"; refusal: Refusal };

/** One claimed mail: compose, send, classify (the drain records it). */
async function attempt(options: DrainOptions, row: OutboxRow, now: () => number): Promise<Attempt> {
  let composed: ComposeResult;
  try {
    const composer = options.composers[row.kind];
    if (!composer) throw new Error(`no composer for '${row.kind}' mails`);
    composed = await composer(row);
  } catch (error) {
    // A mail that cannot be composed now (its list unreachable) is tried again like a relay's "not now".
    const reason = `could not compose: ${error instanceof Error ? error.message : String(error)}`;
    logAttempt(row, "retry", reason);
    return { kind: "retry", detail: reason };
  }
  if ("skip" in composed) return { kind: "skipped", detail: composed.skip };
  try {
    return { kind: "sent", detail: await options.transport.send(composed.message) };
  } catch (error) {
    const { verdict, event } = recipientVerdict(classifySmtpError(error), row, now());
    logAttempt(row, verdict.kind, verdict.reason);
    if (verdict.kind === "failed" && (verdict.recipient || event))
      return { kind: "refused", refusal: { row, verdict, event } };
    if (verdict.kind === "stop") return { kind: "stopped", detail: verdict.reason };
    if (verdict.kind === "retry") {
      // Only the relay's own "not now" tells how it treats readers; a network failure says nothing about them.
      return verdict.relayAnswered
        ? { kind: "retry", detail: verdict.reason, answer: verdict.answer ?? verdict.reason }
        : { kind: "retry", detail: verdict.reason };
    }
    return { kind: verdict.kind, detail: verdict.reason };
  }
}

/** Where every outcome lands: the row's new state in the outbox, with the relay's words. */
function recordOutcome(
  outbox: Outbox,
  owner: string,
  row: OutboxRow,
  outcome: MailOutcome,
  detail: string,
  now: () => number,
) {
  switch (outcome) {
    case "sent":
      return outbox.recordSent(row.id, owner, detail, now());
    case "failed":
      return outbox.recordFailed(row.id, owner, detail, now());
    case "skipped":
      return outbox.recordSkipped(row.id, owner, detail, now());
    case "uncertain":
      return outbox.recordUncertain(row.id, owner, detail, now());
    case "retry":
      return outbox.recordRetry(row.id, owner, detail, now() + nextRetryDelayMs(row.attempts + 1), now());
    case "stopped":
      return outbox.release(row.id, owner, detail, now(), now());
  }
}

export type DrainResult = { kind: "done" } | { kind: "stopped"; reason: string } | { kind: "interrupted" };

/**
 * Passes until `done()` says so (the command: until none of its update's rows is queued or in flight), the relay says
 * stop, or `signal` aborts; between passes it waits for the next retry to fall due, at most `pollMs`, and calls
 * `onIdle` (the progress bar) while it waits. Rows another process holds are waited for: they end sent, or uncertain.
 */
export async function drainUntil(
  options: DrainOptions & { pollMs?: number; onIdle?: () => void },
  done: () => boolean,
  signal?: AbortSignal,
): Promise<DrainResult> {
  const now = options.now ?? Date.now;
  const kinds = options.kinds ?? (Object.keys(options.composers) as MailKind[]);
  const pacer = options.pacer ?? createPacer(options.ratePerSecond ?? 0, Math.max(1, options.concurrency ?? 1), now);
  // Bounded: each round sends or waits up to pollMs; a week of rounds is far past any real send.
  for (let round = 0; round < 10_000_000; round++) {
    const pass = await drainDue({ ...options, kinds, pacer }, signal);
    if (pass.stopped !== null) return { kind: "stopped", reason: pass.stopped };
    if (signal?.aborted) return { kind: "interrupted" };
    options.onIdle?.();
    if (done()) return { kind: "done" };
    const due = options.outbox.nextDue(kinds);
    await pause(Math.min(options.pollMs ?? 1_000, Math.max(20, (due ?? now() + 1_000) - now())), signal);
  }
  return { kind: "stopped", reason: "the send went on past its bound of passes" };
}
