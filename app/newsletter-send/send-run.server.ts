// The sending loop, for the command and the server's resume alike: claim a batch of the update mails due (one write
// transaction, synced to disk: see decision 018), send them over parallel relay connections at the pace, record each
// answer; between batches, wait for the next retry to fall due, until none of the update's rows is queued or in
// flight, the relay says stop, or the owner interrupts. A batch is at most one mail per connection, so a sender that
// dies leaves at most that many uncertain, and the disk is synced once per batch instead of once per mail.
import { classifySmtpError, retryDelayMs } from "~/mail/classify.server";
import type { Composer } from "~/mail/drain.server";
import type { Outbox, OutboxRow } from "~/mail/outbox.server";
import type { MailTransport } from "~/mail/transport.server";
import type { SendCounts } from "~/newsletter-send/progress.server";

export interface SendRunOptions {
  outbox: Outbox;
  transport: MailTransport;
  /** The update being sent: the loop ends when none of its rows is queued or in flight. */
  name: string;
  /** Who claims: the send lock names it, so a dead sender's claims can be marked uncertain. */
  owner: string;
  compose: Composer;
  /** Mails per second; 0 for as fast as the relay takes them. */
  ratePerSecond: number;
  /** Mails claimed and sent at once (the relay connections): the most that can be uncertain if the process dies. */
  concurrency: number;
  /** How long a claim holds; past it, a row still 'sending' is taken for a dead sender's and becomes uncertain. */
  leaseMs: number;
  /** Called after attempts (at most ten times a second) and while waiting. */
  onProgress?(counts: SendCounts): void;
  /** Aborted (Ctrl-C, the terminal closed): no new claim; the mails in flight finish and are recorded. */
  signal?: AbortSignal;
  now?: () => number;
  /** The longest single wait between batches (the loop looks again after it). */
  pollMs?: number;
}

export type SendRunResult = { kind: "done" } | { kind: "stopped"; reason: string } | { kind: "interrupted" };

/** The update's rows as the progress reporter counts them. */
export function sendCounts(outbox: Outbox, name: string): SendCounts & { queued: number; sending: number } {
  const c = outbox.counts({ kind: "update", ref: name });
  const total = c.queued + c.sending + c.sent + c.failed + c.skipped + c.uncertain;
  return { total, ...c };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Start times spaced 1/rate apart. Starts that come late by at most `burst` slots (the event loop held by a disk sync)
 * catch up, so the average holds the rate; after a longer pause the schedule starts afresh: idle time is never
 * banked, and a send's first second never goes over the rate.
 */
export function createPacer(ratePerSecond: number, burst: number, now: () => number) {
  const gap = ratePerSecond > 0 ? 1000 / ratePerSecond : 0;
  let next = -Infinity;
  return (): number => {
    if (gap === 0) return 0;
    const at = now();
    if (at - next > gap * burst) next = at;
    const wait = next - at;
    next += gap;
    return Math.max(0, wait);
  };
}

/** One claimed mail: compose, send, record. Answers the relay's words when it stopped the whole send. */
async function attempt(options: SendRunOptions, row: OutboxRow, now: () => number): Promise<string | null> {
  const { outbox, owner } = options;
  let composed: Awaited<ReturnType<Composer>>;
  try {
    composed = await options.compose(row);
  } catch (error) {
    // The list could not be read now (Supabase unreachable): "later", like a relay's 4xx.
    const reason = `could not compose: ${error instanceof Error ? error.message : String(error)}`;
    outbox.recordRetry(row.id, owner, reason, now() + retryDelayMs(row.attempts + 1), now());
    return null;
  }
  if ("skip" in composed) {
    outbox.recordSkipped(row.id, owner, composed.skip, now());
    return null;
  }
  try {
    outbox.recordSent(row.id, owner, await options.transport.send(composed.message), now());
    return null;
  } catch (error) {
    const verdict = classifySmtpError(error);
    if (verdict.kind === "failed") outbox.recordFailed(row.id, owner, verdict.reason, now());
    else if (verdict.kind === "retry") {
      outbox.recordRetry(row.id, owner, verdict.reason, now() + retryDelayMs(row.attempts + 1), now());
    } else {
      outbox.release(row.id, owner, verdict.reason, now(), now());
      return verdict.reason;
    }
    return null;
  }
}

export async function runSend(options: SendRunOptions): Promise<SendRunResult> {
  const now = options.now ?? Date.now;
  const { outbox, name, owner, signal } = options;
  const batch = Math.max(1, options.concurrency);
  const nextStart = createPacer(options.ratePerSecond, batch, now);
  let stopped: string | null = null;
  let countedAt = -Infinity;
  const progress = (force = false) => {
    if (!options.onProgress || (!force && now() - countedAt < 100)) return;
    countedAt = now();
    options.onProgress(sendCounts(outbox, name));
  };
  const one = async (row: OutboxRow) => {
    const wait = nextStart();
    if (wait > 0) await pause(wait, signal);
    // Claimed, never started: back to the queue as it was (nothing left, nothing to be uncertain about).
    if (stopped !== null || signal?.aborted) return outbox.release(row.id, owner, "not sent yet", row.nextAttemptAt);
    stopped ??= await attempt(options, row, now);
    progress();
  };
  // Bounded: each pass sends a batch or waits up to pollMs; a week of passes is far past any real send.
  for (let pass = 0; pass < 10_000_000; pass++) {
    if (stopped !== null) return { kind: "stopped", reason: stopped };
    if (signal?.aborted) return { kind: "interrupted" };
    const rows = outbox.claim({ kinds: ["update"], limit: batch, owner, leaseMs: options.leaseMs }, now());
    if (rows.length > 0) {
      await Promise.all(rows.map(one));
      continue;
    }
    progress(true);
    const counts = sendCounts(outbox, name);
    if (counts.queued === 0 && counts.sending === 0) return { kind: "done" };
    // Retries wait for their time; rows another process holds are waited for (they end sent, or uncertain).
    const due = outbox.nextDue(["update"]);
    await pause(Math.min(options.pollMs ?? 1_000, Math.max(20, (due ?? now() + 1_000) - now())), signal);
  }
  return { kind: "stopped", reason: "the send went on past its bound of passes" };
}
