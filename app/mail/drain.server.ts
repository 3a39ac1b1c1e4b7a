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
 * kind over a rolling hour, the rest waiting in the outbox. A "stop" verdict (refused login or sender) ends the pass
 * with every claimed row released, the attempt not counted, and `stopped` saying why.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { classifySmtpError, retryDelayMs } from "~/mail/classify.server";
import type { MailKind, Outbox, OutboxRow } from "~/mail/outbox.server";
import { createPacer, type Pacer, pause } from "~/mail/pacer.server";
import type { MailMessage, MailTransport } from "~/mail/transport.server";
import { type RecipientHook, recipientVerdict, tellRecipientHook } from "~/mail/recipient.server";
import { maskEmail } from "~/utils/mask-email.server";
import { warnThrottled } from "~/utils/log.server";

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

  const claim = (): OutboxRow[] => {
    const rows: OutboxRow[] = [];
    for (const kind of kinds) {
      let room = batch - rows.length;
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

  const one = async (row: OutboxRow) => {
    const wait = nextStart();
    if (wait > 0) await pause(wait, signal);
    // Claimed, never started: back to the queue as it was (nothing left, nothing to be uncertain about).
    if (pass.stopped !== null || signal?.aborted) {
      return outbox.release(row.id, owner, "not sent yet", row.nextAttemptAt, now());
    }
    const outcome = await attempt(options, owner, row, now);
    // A stop counts as no attempt of this mail: its row went back to the queue as it was.
    if (outcome.kind === "stopped") pass.stopped ??= outcome.detail;
    else pass[COUNTED[outcome.kind]] += 1;
  };

  while (pass.stopped === null && !signal?.aborted) {
    const rows = claim();
    if (rows.length === 0) break;
    await Promise.all(rows.map(one));
  }
  return pass;
}

/** One claimed mail: compose, send, classify, record. */
async function attempt(
  options: DrainOptions,
  owner: string,
  row: OutboxRow,
  now: () => number,
): Promise<{ kind: MailOutcome; detail: string }> {
  const record = (kind: MailOutcome, detail: string) => {
    recordOutcome(options.outbox, owner, row, kind, detail, now);
    options.onAttempt?.(row, kind, detail);
    return { kind, detail };
  };
  let composed: ComposeResult;
  try {
    const composer = options.composers[row.kind];
    if (!composer) throw new Error(`no composer for '${row.kind}' mails`);
    composed = await composer(row);
  } catch (error) {
    // A mail that cannot be composed now (its list unreachable) is tried again like a relay's "not now".
    const reason = `could not compose: ${error instanceof Error ? error.message : String(error)}`;
    logAttempt(row, "retry", reason);
    return record("retry", reason);
  }
  if ("skip" in composed) return record("skipped", composed.skip);
  let response: string;
  try {
    response = await options.transport.send(composed.message);
  } catch (error) {
    const { verdict, event } = recipientVerdict(classifySmtpError(error), row, now());
    logAttempt(row, verdict.kind, verdict.reason);
    const result = record(verdict.kind === "stop" ? "stopped" : verdict.kind, verdict.reason);
    await tellRecipientHook(options.onRecipient, row, event);
    return result;
  }
  const result = record("sent", response);
  await tellRecipientHook(options.onRecipient, row, { kind: "delivered" });
  return result;
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
      return outbox.recordRetry(row.id, owner, detail, now() + retryDelayMs(row.attempts + 1), now());
    case "stopped":
      return outbox.release(row.id, owner, detail, now(), now());
  }
}

/** One line per failed attempt, identical kinds of trouble rate-limited; the address masked, never a secret. */
function logAttempt(row: OutboxRow, verdict: string, reason: string) {
  const what =
    verdict === "retry"
      ? "will be retried"
      : verdict === "failed"
        ? "failed"
        : verdict === "uncertain"
          ? "may have arrived (uncertain, not sent again)"
          : "stopped the sending";
  warnThrottled(
    `Mail: the ${row.kind} mail to ${maskEmail(row.recipient)} ${what} (attempt ${row.attempts + 1}): ${reason}`,
    `mail ${row.kind} ${verdict}`,
  );
}

/** One line (throttled) while the hourly cap holds mails back: how many wait, and how many went in the hour. */
function logCapped(outbox: Outbox, kind: MailKind, cap: number, sentInHour: number) {
  const waiting = outbox.counts({ kind }).queued;
  warnThrottled(
    `Mail: the hourly cap holds ${waiting} ${kind} mail(s) back: ${sentInHour} sent in the last hour, at most ${cap} ` +
      "(MAIL_MAX_PER_HOUR).",
    `mail ${kind} hourly cap`,
  );
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
