// The command's sending loop: passes of the mail path's drain over the 'update' rows (claim, compose, send, record),
// and between passes a wait for the next retry to fall due, until none of the update's rows is queued or in flight,
// the relay says stop, or the owner interrupts. The counts come from the outbox, the truth whoever sends.
import { type Composer, drainDue } from "~/mail/drain.server";
import type { Outbox } from "~/mail/outbox.server";
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
  /** Sends in flight at once, each with one mail claimed: the most that can be uncertain if the process dies. */
  concurrency: number;
  /** How long a claim holds; past it, a row still 'sending' is taken for a dead sender's and becomes uncertain. */
  leaseMs: number;
  /** Called after every attempt and while waiting. */
  onProgress?(counts: SendCounts): void;
  /** Aborted (Ctrl-C, the terminal closed): no new claim; the mails in flight finish and are recorded. */
  signal?: AbortSignal;
  now?: () => number;
  /** The longest single wait between passes (the loop looks again after it). */
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

export async function runSend(options: SendRunOptions): Promise<SendRunResult> {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 1_000;
  const { outbox, name, signal } = options;
  // Counting the update's rows costs a query: at most ten times a second, whatever the pace.
  let countedAt = -Infinity;
  const progress = (force = false) => {
    if (!options.onProgress || (!force && now() - countedAt < 100)) return;
    countedAt = now();
    options.onProgress(sendCounts(outbox, name));
  };
  // Bounded: each pass sends what is due or waits up to pollMs; a week of passes is far past any real send.
  for (let pass = 0; pass < 1_000_000; pass++) {
    const result = await drainDue(
      {
        outbox,
        transport: options.transport,
        composers: { update: options.compose },
        kinds: ["update"],
        owner: options.owner,
        leaseMs: options.leaseMs,
        concurrency: options.concurrency,
        ratePerSecond: options.ratePerSecond,
        onAttempt: () => progress(),
        now,
      },
      signal,
    );
    progress(true);
    if (result.stopped) return { kind: "stopped", reason: result.stopped };
    if (signal?.aborted) return { kind: "interrupted" };
    const counts = sendCounts(outbox, name);
    if (counts.queued === 0 && counts.sending === 0) return { kind: "done" };
    // Retries wait for their time; rows another process holds are waited for (they end sent, or uncertain).
    const due = outbox.nextDue(["update"]);
    await pause(Math.min(pollMs, Math.max(20, (due ?? now() + pollMs) - now())), signal);
  }
  return { kind: "stopped", reason: "the send went on past its bound of passes" };
}
