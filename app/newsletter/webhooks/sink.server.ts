// Where a verified bounce or complaint goes: the subscriber list, which the composition root hands to the webhooks'
// receiver when it builds it (app/server-build/). Without one, each relay is answered by its retry rule
// (receive.server.ts).

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
