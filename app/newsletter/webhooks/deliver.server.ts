import type { AppliedEvents } from "./recent-events";
import type { SuppressionSink } from "./sink.server";
import type { RelayEvent } from "./types";

export type Delivery =
  | { ok: true; counts: Record<string, number> }
  /** The list failed: `rest` (the failed event and those after it) was not applied. */
  | { ok: false; error: unknown; counts: Record<string, number>; rest: RelayEvent[] };

/**
 * Hands each event to the list, once: an event applied before (this process or an earlier one, as `memory` says) is
 * skipped, so a relay's retry never counts a soft bounce twice. Counts what the list did, by kind and outcome
 * ("bounced suppressed", "soft-bounce counted"), for one log line per request.
 */
export async function deliverEvents(
  events: readonly RelayEvent[],
  sink: SuppressionSink,
  memory: AppliedEvents,
  now: () => Date = () => new Date(),
): Promise<Delivery> {
  const counts: Record<string, number> = {};
  const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);
  for (const [index, event] of events.entries()) {
    if (memory.applied(event.eventId)) {
      count(`${event.kind} repeated`);
      continue;
    }
    let outcome: string;
    try {
      outcome =
        event.kind === "soft-bounce"
          ? await sink.softBounce(event.email, event.detail, event.at)
          : await sink.suppress(event.email, event.kind, event.detail, event.at);
    } catch (error) {
      return { ok: false, error, counts, rest: events.slice(index) };
    }
    memory.markApplied(event.eventId, now());
    count(`${event.kind} ${outcome}`);
  }
  return { ok: true, counts };
}

/** "2 bounced suppressed, 1 complained unknown": what one request did, without any address. */
export const describeCounts = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([what, count]) => `${count} ${what}`)
    .join(", ") || "nothing to do";
