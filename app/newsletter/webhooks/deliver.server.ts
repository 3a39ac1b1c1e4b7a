import type { createRecentEvents } from "./recent-events";
import type { SuppressionSink } from "./sink.server";
import type { RelayEvent } from "./types";

export type Delivery =
  | { ok: true; counts: Record<string, number> }
  /** The list failed: nothing after this event was handed on, and the relay is to retry (503). */
  | { ok: false; error: unknown };

/**
 * Hands each event to the list, once: an event already handed on by this process is skipped. Counts what the list
 * did, by kind and outcome ("bounced suppressed", "soft-bounce counted"), for one log line per request.
 */
export async function deliverEvents(
  events: RelayEvent[],
  sink: SuppressionSink,
  recent: ReturnType<typeof createRecentEvents>,
): Promise<Delivery> {
  const counts: Record<string, number> = {};
  for (const event of events) {
    if (recent.has(event.eventId)) {
      counts[`${event.kind} repeated`] = (counts[`${event.kind} repeated`] ?? 0) + 1;
      continue;
    }
    let outcome: string;
    try {
      outcome =
        event.kind === "soft-bounce"
          ? await sink.softBounce(event.email, event.detail, event.at)
          : await sink.suppress(event.email, event.kind, event.detail, event.at);
    } catch (error) {
      return { ok: false, error };
    }
    recent.add(event.eventId);
    counts[`${event.kind} ${outcome}`] = (counts[`${event.kind} ${outcome}`] ?? 0) + 1;
  }
  return { ok: true, counts };
}

/** "2 bounced suppressed, 1 complained unknown": what one request did, without any address. */
export const describeCounts = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([what, count]) => `${count} ${what}`)
    .join(", ") || "nothing to do";
