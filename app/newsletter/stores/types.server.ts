/** What became of one sign-up; each outcome has its own toast (app/newsletter/messages.ts). */
export type SubscribeOutcome = "subscribed" | "duplicate" | "failed";

/**
 * What became of an unsubscribe request: "removed" when the token belonged to a subscriber, "unknown" when it belongs
 * to nobody (never given, or already used). The page answers both alike; only unknown tokens count against the
 * unsubscribe rate limit, so a mail provider's one-click posts for many readers from one address are all honoured.
 */
export type UnsubscribeOutcome = "removed" | "unknown" | "failed";

/** Where addresses go. Both stores treat case variants of an address as the same subscriber. */
export interface SubscriberStore {
  readonly kind: "supabase" | "sqlite";
  /** Never throws: every failure is logged with its cause and answered as "failed". */
  subscribe(email: string): Promise<SubscribeOutcome>;
  /** Removes the subscriber holding this unsubscribe token, if any. Never throws. */
  unsubscribe(token: string): Promise<UnsubscribeOutcome>;
}

/** An unsubscribe token: a random (version 4) UUID, given to every subscriber when stored. */
const UNSUBSCRIBE_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isUnsubscribeToken = (value: unknown): value is string =>
  typeof value === "string" && UNSUBSCRIBE_TOKEN.test(value);
