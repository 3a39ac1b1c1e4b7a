// Where a verified bounce or complaint goes: the subscriber list, which the composition root hands in at start-up
// (provideSuppressionSink). Until then, each relay is answered by its retry rule (receive.server.ts).

/** What the list did with one report: suppressed the reader now, found them suppressed already, or knows no such reader. */
export type SinkOutcome = "suppressed" | "already" | "unknown";

/** What the webhooks need of the subscriber list (app/newsletter/list/ implements it for both stores). */
export interface SuppressionSink {
  /** Suppresses the reader with this address for good, with the relay's words and the time it reported. */
  suppress(
    email: string,
    reason: "bounced" | "complained" | "unsubscribed",
    detail: string,
    at: Date,
  ): Promise<SinkOutcome>;
  /**
   * Counts one soft bounce for the reader (three in a row suppress them as `bounced`): "suppressed" when this one did,
   * "already" when the reader is suppressed already or this report (same `at`) was counted before.
   */
  softBounce(email: string, detail: string, at: Date): Promise<SinkOutcome | "counted">;
}

let provided: SuppressionSink | null = null;
let warned = false;
const listeners = new Set<() => void>();

/** Called once by the composition root, with the list, before the server listens. */
export function provideSuppressionSink(sink: SuppressionSink | null): void {
  provided = sink;
  warned = false;
  if (sink) for (const listener of listeners) listener();
}

/** Calls `listener` whenever a list is provided (the reports kept while there was none can go now); unsubscribes. */
export function onSuppressionSink(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The list to hand events to, or null (the route answers 503) with one line in the log the first time. */
export function getSuppressionSink(): SuppressionSink | null {
  if (!provided && !warned) {
    warned = true;
    console.error(
      "Webhooks: a relay reported a bounce or complaint, but no subscriber list is wired to take it " +
        "(provideSuppressionSink was not called): each relay is answered so that it retries, or the report is kept.",
    );
  }
  return provided;
}
