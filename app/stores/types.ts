/** What became of one sign-up; each outcome has its own toast (spec §8). */
export type SubscribeOutcome = "subscribed" | "duplicate" | "failed";

/** Where addresses go. Both stores treat case variants of an address as the same subscriber. */
export interface SubscriberStore {
  readonly kind: "supabase" | "sqlite";
  /** Never throws: every failure is logged with its cause and answered as "failed". */
  subscribe(email: string): Promise<SubscribeOutcome>;
}

/** A cause for the log line: the message only, one line, bounded (a gateway's HTML page can be long). */
export function describeCause(cause: unknown): string {
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
