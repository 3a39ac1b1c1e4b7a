// What becomes of a verified request's events, by the relay's own retry rule (docs/newsletter.md, "What each relay
// is answered"): applied to the list now (200); or, when the list cannot take them, kept in the journal and applied
// later (200) for a relay that drops a report on any error answer (Brevo), else 503 so the relay retries.
import { existsSync } from "node:fs";
import path from "node:path";
import { deliverEvents, describeCounts } from "./deliver.server";
import { JOURNAL_FILE_NAME, openJournal, type Journal } from "./journal.server";
import { createRecentEvents, type AppliedEvents } from "./recent-events";
import type { SuppressionSink } from "./sink.server";
import type { Relay, RelayEvent } from "./types";

/** Brevo: "4xx response codes, except for 429, and any 5xx response code stop all retry attempts". */
const DROPS_ON_ERROR: ReadonlySet<Relay> = new Set(["brevo"]);

export interface Receipt {
  status: 200 | 503;
  /** One line for the log, without any address. */
  log: string;
  retryAfter?: number;
}

export interface ReceiverOptions {
  /** Where the journal lives (DATA_DIR); null keeps only an in-memory record (a test's, or a read-only disk). */
  dataDir: string | null;
  sink: () => SuppressionSink | null;
  now?: () => Date;
  /** How long after a failed attempt kept reports are tried again, at first (doubling up to ten minutes). */
  retryMs?: number;
  warn?: (line: string) => void;
}

const DRAIN_BATCH = 200;
const MAX_RETRY_MS = 10 * 60 * 1000;

export function createReceiver(options: ReceiverOptions) {
  const now = options.now ?? (() => new Date());
  const warn = options.warn ?? ((line: string) => console.warn(line));
  let journal: Journal | null | undefined;
  const fallback = createRecentEvents();
  // One delivery at a time: two requests (or a request and the retry timer) never apply one event twice.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  let timer: NodeJS.Timeout | null = null;
  let delay = options.retryMs ?? 30_000;

  function openedJournal(): Journal | null {
    if (journal !== undefined) return journal;
    try {
      journal = options.dataDir ? openJournal(options.dataDir) : null;
    } catch (error) {
      warn(`Webhooks: the journal in DATA_DIR cannot be opened (${(error as Error).message}): ids kept in memory only`);
      journal = null;
    }
    return journal;
  }
  const memory = (): AppliedEvents => openedJournal() ?? fallback;

  /** Applies the kept reports, oldest first, until none is left or the list fails; whether all went. */
  async function drain(sink: SuppressionSink): Promise<boolean> {
    const kept = openedJournal();
    if (!kept) return true;
    for (let batch = kept.kept(DRAIN_BATCH); batch.length > 0; batch = kept.kept(DRAIN_BATCH)) {
      const delivery = await deliverEvents(batch, sink, kept, now);
      if (!delivery.ok) return false;
      // A kept event the list had applied already (a repeat) still leaves the journal.
      for (const event of batch) kept.markApplied(event.eventId, now());
      console.log(`Webhooks: kept reports applied: ${describeCounts(delivery.counts)}`);
    }
    return true;
  }

  function scheduleDrain(after: number): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void serially(async () => {
        const sink = options.sink();
        const kept = openedJournal();
        if (!kept || kept.keptCount() === 0) return;
        if (sink && (await drain(sink))) {
          delay = options.retryMs ?? 30_000;
          return;
        }
        delay = Math.min(delay * 2, MAX_RETRY_MS);
        scheduleDrain(delay);
      });
    }, after);
    timer.unref();
  }

  function keep(relay: Relay, events: readonly RelayEvent[]): boolean {
    const kept = openedJournal();
    try {
      if (!kept?.keep(relay, events)) return false;
    } catch {
      return false;
    }
    scheduleDrain(delay);
    return true;
  }

  /** The events of one verified request from `relay`: applied, kept, or refused for a retry. */
  function receive(relay: Relay, events: readonly RelayEvent[]): Promise<Receipt> {
    return serially(async () => {
      const sink = options.sink();
      let rest: readonly RelayEvent[] = events;
      let failure = "no subscriber list is wired to take it";
      if (sink && (await drain(sink))) {
        const delivery = await deliverEvents(events, sink, memory(), now);
        if (delivery.ok) return { status: 200, log: describeCounts(delivery.counts) };
        rest = delivery.rest;
        failure = `the subscriber list failed (${(delivery.error as Error)?.message ?? String(delivery.error)})`;
      } else if (sink) {
        failure = "the subscriber list cannot take the reports kept before";
      }
      if (DROPS_ON_ERROR.has(relay) && keep(relay, rest)) {
        return { status: 200, log: `${failure}: ${rest.length} kept, to be applied when it can` };
      }
      return { status: 503, log: `${failure}: answered 503`, retryAfter: 60 };
    });
  }

  // Only when an earlier run left a journal: a process that never took a report creates no file.
  const journalExists = () => options.dataDir !== null && existsSync(path.join(options.dataDir, JOURNAL_FILE_NAME));

  return {
    receive,
    /** Start-up, with the list wired: the moment to apply what an earlier run kept. */
    start() {
      if (options.sink() && (journal || journalExists())) scheduleDrain(0);
    },
    /** The kept reports waiting (for the tests and /healthz-style checks). */
    keptCount: () => openedJournal()?.keptCount() ?? 0,
    /** Applies the kept reports now, when the list can take them; whether none is left. */
    drainNow: () => serially(async () => Boolean(options.sink() && (await drain(options.sink()!)))),
    close() {
      if (timer) clearTimeout(timer);
      journal?.close();
      journal = undefined;
    },
  };
}

export type Receiver = ReturnType<typeof createReceiver>;
