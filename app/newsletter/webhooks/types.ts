/** The relays whose bounce and complaint webhooks the site hears: one endpoint each, `/webhooks/<relay>`. */
export const RELAYS = ["resend", "postmark", "mailgun", "brevo", "ses"] as const;
export type Relay = (typeof RELAYS)[number];

export const isRelay = (value: string): value is Relay => (RELAYS as readonly string[]).includes(value);

/**
 * What one relay's report means for one reader: a permanent refusal (`bounced`), a spam complaint (`complained`), the
 * reader leaving through the relay's own unsubscribe (`unsubscribed`), or a refusal the relay gave up on for now
 * (`soft-bounce`, which the list counts). Everything else a relay reports
 * (delivery, opens, clicks, delays still being retried) is no event at all.
 */
export interface RelayEvent {
  kind: "bounced" | "complained" | "unsubscribed" | "soft-bounce";
  email: string;
  /** The relay's own words, one bounded line, for the owner: "Postmark HardBounce: 550 5.1.1 user unknown". */
  detail: string;
  /** The relay's identity of this report for this reader: the same delivery retried has the same id. */
  eventId: string;
  /** When the relay says it happened (the time of the receipt when it says nothing usable). */
  at: Date;
}

/** The verdict on a request's credentials or signature: `null` when it is the relay's, else why not (never a secret). */
export type Refusal = string;

/** What a relay's body says, once verified: the events in it (and a note for the log), or why it is unreadable (400). */
export type Parsed = { ok: true; events: RelayEvent[]; note?: string } | { ok: false; reason: string };

/** The request's headers, as the route has them (lower-case names). */
export interface HeaderSource {
  get(name: string): string | null;
}
