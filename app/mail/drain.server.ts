/**
 * Drains the outbox: claim one due row -> compose it -> send it -> record what the relay said. Used by the web server
 * (startDrainer, in the background, for confirmation mails) and by the owner's commands (drainDue, for updates).
 *
 * What is sent is decided per kind by a Composer: it turns a claimed row into a message, or answers `{ skip }` when
 * there is nothing to send any more (the reader left). A composer may write to a store (e.g. the hash of a token it
 * puts in the mail) before the message goes: a crash after that leaves the row 'sending', later 'uncertain'.
 *
 * Pacing: `ratePerSecond` spaces the starts of sends (0: unpaced); `maxPerHour` caps a kind over a rolling hour, the
 * rest waiting in the outbox. A "stop" verdict (refused login or sender) ends the pass with every claimed row
 * released, the attempt not counted, and `stopped` saying why.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { classifySmtpError, retryDelayMs } from "~/mail/classify.server";
import type { MailKind, Outbox, OutboxRow } from "~/mail/outbox.server";
import type { MailMessage, MailTransport } from "~/mail/transport.server";
import { maskEmail } from "~/newsletter/mask-email.server";
import { warnThrottled } from "~/utils/log.server";

export type ComposeResult = { message: MailMessage } | { skip: string };
export type Composer = (row: OutboxRow) => ComposeResult | Promise<ComposeResult>;

export type MailOutcome = "sent" | "retry" | "failed" | "skipped" | "stopped";

export interface DrainOptions {
  outbox: Outbox;
  transport: MailTransport;
  composers: Partial<Record<MailKind, Composer>>;
  /** The kinds this drainer takes (default: every kind it has a composer for). */
  kinds?: MailKind[];
  /** Who holds claimed rows (default: host, pid and a random part). */
  owner?: string;
  /** How long a claimed row is ours: longer than one attempt can take (the transport's timeouts bound it). */
  leaseMs?: number;
  /** Sends in flight at once (default 1). */
  concurrency?: number;
  ratePerSecond?: number;
  maxPerHour?: Partial<Record<MailKind, number>>;
  /** Called after each attempt (progress bars, tests). */
  onAttempt?: (row: OutboxRow, outcome: MailOutcome, detail: string) => void;
  now?: () => number;
}

export interface DrainPass {
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
  /** Set when the relay refused the sending itself (login, sender): the relay's words. */
  stopped: string | null;
  /** Whether an hourly cap held rows back in this pass. */
  capped: boolean;
}

export const DEFAULT_LEASE_MS = 2 * 60_000;
const HOUR_MS = 60 * 60_000;

export const newOwner = () => `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Sends every row due now (within the caps), then resolves with what happened. */
export async function drainDue(options: DrainOptions, signal?: AbortSignal): Promise<DrainPass> {
  const now = options.now ?? Date.now;
  const owner = options.owner ?? newOwner();
  const kinds = options.kinds ?? (Object.keys(options.composers) as MailKind[]);
  const spacing = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
  const pass: DrainPass = { sent: 0, retried: 0, failed: 0, skipped: 0, stopped: null, capped: false };
  let nextStart = 0;

  const claimOne = (): OutboxRow | undefined => {
    for (const kind of kinds) {
      const cap = options.maxPerHour?.[kind];
      if (cap !== undefined && options.outbox.sentSince(kind, now() - HOUR_MS) >= cap) {
        if (options.outbox.nextDue([kind]) !== null) pass.capped = true;
        continue;
      }
      const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
      const [row] = options.outbox.claim({ kinds: [kind], limit: 1, owner, leaseMs }, now());
      if (row) return row;
    }
    return undefined;
  };

  const worker = async () => {
    while (!pass.stopped && !signal?.aborted) {
      if (spacing) {
        const wait = nextStart - now();
        nextStart = Math.max(nextStart, now()) + spacing;
        if (wait > 0) await sleep(wait);
      }
      const row = claimOne();
      if (!row) return;
      const outcome = await attempt(options, owner, row, now);
      // A stop counts as no attempt of this mail: its row went back to the queue as it was.
      if (outcome.stop) pass.stopped = outcome.stop;
      else pass[({ sent: "sent", retry: "retried", failed: "failed", skipped: "skipped" } as const)[outcome.kind]] += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  return pass;
}

async function attempt(
  options: DrainOptions,
  owner: string,
  row: OutboxRow,
  now: () => number,
): Promise<{ kind: "sent" | "retry" | "failed" | "skipped"; stop?: string }> {
  const { outbox } = options;
  const report = (outcome: MailOutcome, detail: string) => options.onAttempt?.(row, outcome, detail);
  let composed: ComposeResult;
  try {
    const composer = options.composers[row.kind];
    if (!composer) throw new Error(`no composer for '${row.kind}' mails`);
    composed = await composer(row);
  } catch (error) {
    // A mail that cannot be composed now (its store unreachable) is tried again like a relay's "not now".
    const reason = `could not compose: ${error instanceof Error ? error.message : String(error)}`;
    outbox.recordRetry(row.id, owner, reason, now() + retryDelayMs(row.attempts + 1), now());
    logAttempt(row, "retry", reason);
    report("retry", reason);
    return { kind: "retry" };
  }
  if ("skip" in composed) {
    outbox.recordSkipped(row.id, owner, composed.skip, now());
    report("skipped", composed.skip);
    return { kind: "skipped" };
  }
  try {
    const response = await options.transport.send(composed.message);
    outbox.recordSent(row.id, owner, response, now());
    report("sent", response);
    return { kind: "sent" };
  } catch (error) {
    const verdict = classifySmtpError(error);
    logAttempt(row, verdict.kind, verdict.reason);
    if (verdict.kind === "failed") {
      outbox.recordFailed(row.id, owner, verdict.reason, now());
      report("failed", verdict.reason);
      return { kind: "failed" };
    }
    if (verdict.kind === "retry") {
      outbox.recordRetry(row.id, owner, verdict.reason, now() + retryDelayMs(row.attempts + 1), now());
      report("retry", verdict.reason);
      return { kind: "retry" };
    }
    outbox.release(row.id, owner, verdict.reason, now(), now());
    report("stopped", verdict.reason);
    return { kind: "retry", stop: verdict.reason };
  }
}

/** One line per failed attempt, identical kinds of trouble rate-limited; the address masked, never a secret. */
function logAttempt(row: OutboxRow, verdict: string, reason: string) {
  const what = verdict === "retry" ? "will be retried" : verdict === "failed" ? "failed" : "stopped the sending";
  warnThrottled(
    `Mail: the ${row.kind} mail to ${maskEmail(row.recipient)} ${what} (attempt ${row.attempts + 1}): ${reason}`,
    `mail ${row.kind} ${verdict}`,
  );
}
