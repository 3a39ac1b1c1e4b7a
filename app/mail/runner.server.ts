/**
 * The server's one runner: drains the outbox in the background for as long as the process runs, one lane per group of
 * kinds (confirmations; updates), each lane repeating the engine's pass (drain.server.ts) on its own, so a long update
 * send never holds a reader's confirmation mail back. `wake()` after an enqueue starts a pass at once (the sign-up's
 * answer never waits for it); otherwise a lane passes when its next row is due, and at least every `idleMs` (another
 * process may have queued rows). After a "stop" (refused login or sender) a lane pauses with the same backoff as a
 * retry (10 s doubling, at most 5 minutes), so a wrong password costs one log line per pause, not one per mail.
 * `stop()` ends every lane after the attempts in flight.
 */
import { nextRetryDelayMs } from "~/mail/retry-delay.server";
import { type DrainOptions, type DrainPass, drainDue, newOwner } from "~/mail/drain.server";
import type { MailKind } from "~/mail/outbox.server";
import { createPacer } from "~/mail/pacer.server";
import { warnThrottled } from "~/utils/log.server";

/** A lane's hold on its work, when it needs one (the update lane takes the send lock): who claims, and what after. */
export interface LaneTurn {
  owner: string;
  /** After each pass under this turn; `aborted` when the runner is stopping. */
  after(pass: DrainPass, aborted: boolean): void;
}

export interface Lane {
  kinds: MailKind[];
  concurrency?: number;
  ratePerSecond?: number;
  maxPerHour?: Partial<Record<MailKind, number>>;
  leaseMs?: number;
  /** Asked before each pass: the turn to pass under, or null to look again in `checkMs` (default: always, as one owner). */
  turn?(now: number): LaneTurn | null;
  /** How long to wait when `turn` answers null (default 15 s). */
  checkMs?: number;
}

export interface Runner {
  wake(): void;
  /** Ends every lane; waits for the attempts in flight at most `waitMs` (default 3 s). */
  stop(waitMs?: number): Promise<void>;
}

export interface RunnerOptions extends Pick<
  DrainOptions,
  "outbox" | "transport" | "composers" | "now" | "onAttempt" | "onRecipient" | "expireAfterMs"
> {
  lanes: Lane[];
  /** The longest wait between passes (default 30 s). */
  idleMs?: number;
}

/** The runner built and started at once (a test's, or a process with nothing to wire first). */
export function startRunner(options: RunnerOptions): Runner {
  const runner = createRunner(options);
  runner.start();
  return runner;
}

/**
 * The runner built, its lanes not yet running: the composition root wires it (`wake` before `start` is a no-op, the
 * first pass drains whatever is due) and starts it with the rest of the server.
 */
export function createRunner(options: RunnerOptions): Runner & { start(): void } {
  const now = options.now ?? Date.now;
  const idleMs = options.idleMs ?? 30_000;
  const controller = new AbortController();
  const wakers = new Set<() => void>();

  const runLane = async (lane: Lane) => {
    // The server's start-up (its listen) goes first: no lane touches the outbox in the tick that started it.
    await new Promise((resolve) => setImmediate(resolve));
    const owner = newOwner();
    const pacer = createPacer(lane.ratePerSecond ?? 0, Math.max(1, lane.concurrency ?? 1), now);
    let stops = 0;
    let laneWoken = false;
    while (!controller.signal.aborted) {
      laneWoken = false;
      let wait = idleMs;
      try {
        const turn = lane.turn ? lane.turn(now()) : { owner, after: () => {} };
        if (!turn) wait = lane.checkMs ?? 15_000;
        else {
          const pass = await drainDue({ ...options, ...lane, owner: turn.owner, pacer }, controller.signal);
          turn.after(pass, controller.signal.aborted);
          if (pass.stopped) {
            wait = nextRetryDelayMs(++stops);
            // The breaker's stops have no attempt line of their own: this one says why the lane waits, and how long.
            warnThrottled(
              `Mail: the ${lane.kinds.join(" and ")} mails wait ${Math.round(wait / 1000)} s: ${pass.stopped}`,
              `mail lane ${lane.kinds.join(" ")} paused`,
            );
          } else {
            stops = 0;
            const due = options.outbox.nextDue(lane.kinds);
            // Capped rows are due yet held back: look again in a minute, when older sends have left the hour.
            if (due !== null) wait = Math.min(wait, pass.capped ? 60_000 : Math.max(0, due - now()));
          }
        }
      } catch (error) {
        // The outbox file itself failed (disk full, removed): say so, and try again later rather than stop for good.
        warnThrottled(`Mail: the outbox could not be drained: ${String(error)}`, "mail outbox error");
        wait = nextRetryDelayMs(++stops);
      }
      if (laneWoken || wait <= 0 || controller.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        timer.unref();
        function done() {
          clearTimeout(timer);
          wakers.delete(wake);
          resolve();
        }
        const wake = () => ((laneWoken = true), done());
        wakers.add(wake);
      });
    }
  };
  let done: Promise<unknown> = Promise.resolve();
  let started = false;

  return {
    start() {
      if (started || controller.signal.aborted) return;
      started = true;
      done = Promise.all(options.lanes.map(runLane));
    },
    wake() {
      for (const wake of [...wakers]) wake();
    },
    async stop(waitMs = 3_000) {
      controller.abort();
      for (const wake of [...wakers]) wake();
      // A shutdown has seconds, an attempt on a stalled relay up to its timeouts: past `waitMs` the attempt is left
      // to its lease (the row turns 'uncertain' rather than sent twice).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    },
  };
}
