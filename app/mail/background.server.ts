/**
 * The server's drainer: drains the outbox in the background for as long as the process runs. `wake()` after an
 * enqueue starts a pass at once (the sign-up's answer never waits for it); otherwise a pass runs when the next row is
 * due, and at least every `idleMs` (another process may have queued rows). After a "stop" (refused login or sender)
 * it pauses with the same backoff as a retry (10 s doubling, at most 5 minutes), so a wrong password costs one log
 * line per pause, not one per mail. `stop()` ends the loop after the attempt in flight.
 */
import { retryDelayMs } from "~/mail/classify.server";
import { type DrainOptions, drainDue, newOwner } from "~/mail/drain.server";
import { warnThrottled } from "~/utils/log.server";

export interface Drainer {
  wake(): void;
  /** Ends the loop; waits for the attempt in flight at most `waitMs` (default 3 s). */
  stop(waitMs?: number): Promise<void>;
  /** Resolves once no pass is running and nothing queued is due (tests). */
  settled(): Promise<void>;
}

export interface DrainerOptions extends DrainOptions {
  /** The longest wait between passes (default 30 s). */
  idleMs?: number;
}

export function startDrainer(options: DrainerOptions): Drainer {
  const owner = options.owner ?? newOwner();
  const now = options.now ?? Date.now;
  const kinds = options.kinds ?? (Object.keys(options.composers) as NonNullable<DrainOptions["kinds"]>);
  const idleMs = options.idleMs ?? 30_000;
  const controller = new AbortController();
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let stops = 0;
  let running = true;
  let idle = false;
  let idleWaiters: (() => void)[] = [];

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(resolve, Math.max(0, ms));
      timer.unref();
      wakeUp = () => (clearTimeout(timer), resolve());
    });

  const loop = async () => {
    while (!controller.signal.aborted) {
      woken = false;
      let wait = idleMs;
      try {
        const pass = await drainDue({ ...options, owner, kinds }, controller.signal);
        if (pass.stopped) {
          stops += 1;
          wait = retryDelayMs(stops);
        } else {
          stops = 0;
          const due = options.outbox.nextDue(kinds);
          // Capped rows are due yet held back: look again in a minute, when older sends have left the hour.
          if (due !== null) wait = Math.min(wait, pass.capped ? 60_000 : Math.max(0, due - now()));
        }
      } catch (error) {
        // The outbox file itself failed (disk full, removed): say so, and try again later rather than stop for good.
        warnThrottled(`Mail: the outbox could not be drained: ${String(error)}`, "mail outbox error");
        wait = retryDelayMs(++stops);
      }
      if (!woken && wait > 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
        idle = true;
        await pause(wait);
        idle = false;
      }
      wakeUp = null;
    }
    running = false;
    for (const resolve of idleWaiters) resolve();
  };
  const done = loop();

  return {
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop(waitMs = 3_000) {
      controller.abort();
      wakeUp?.();
      // A shutdown has seconds, an attempt on a stalled relay up to its timeouts: past `waitMs` the attempt is left
      // to its lease (the row turns 'uncertain' rather than sent twice).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    },
    settled: () =>
      new Promise<void>((resolve) => {
        if (!running || (idle && !woken)) return resolve();
        idleWaiters.push(resolve);
      }),
  };
}
