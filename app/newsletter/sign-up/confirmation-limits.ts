/**
 * How many confirmation mails a sign-up may cause: one mailbox, whatever the spelling of its address
 * (mailbox-key.ts), gets a few a day, and one visitor (a client address, app/utils/client-address.server.ts) stays well
 * under the global hourly cap (MAIL_MAX_PER_HOUR, 100 by default), so one flooder can neither fill an inbox nor build a
 * backlog that real readers' confirmations wait behind. Pure: the counts come in, the verdict goes out.
 */

const HOUR_MS = 60 * 60_000;

export interface ConfirmationLimits {
  /** Confirmation mails per mailbox (mailboxKey) within `mailboxWindowMs`. */
  perMailbox: number;
  mailboxWindowMs: number;
  /** Confirmation mails asked for by one visitor within `visitorWindowMs`. */
  perVisitor: number;
  visitorWindowMs: number;
}

export const CONFIRMATION_LIMITS: ConfirmationLimits = {
  perMailbox: 3,
  mailboxWindowMs: 24 * HOUR_MS,
  perVisitor: 10,
  visitorWindowMs: HOUR_MS,
};

/** Confirmation mails already queued within each window (null: the visitor is not known, so not limited). */
export interface ConfirmationCounts {
  mailbox: number;
  visitor: number | null;
}

/** Whether one more confirmation mail fits; if not, which limit holds it back and the count that reached it. */
export type ConfirmationRoom =
  { fits: true } | { fits: false; limit: "mailbox" | "visitor"; count: number; max: number; windowMs: number };

export function confirmationRoom(counts: ConfirmationCounts, limits: ConfirmationLimits): ConfirmationRoom {
  // The mailbox first: it is the limit a reader's own inbox is protected by, and the one a log reader looks for.
  if (counts.mailbox >= limits.perMailbox) {
    return {
      fits: false,
      limit: "mailbox",
      count: counts.mailbox,
      max: limits.perMailbox,
      windowMs: limits.mailboxWindowMs,
    };
  }
  if (counts.visitor !== null && counts.visitor >= limits.perVisitor) {
    return {
      fits: false,
      limit: "visitor",
      count: counts.visitor,
      max: limits.perVisitor,
      windowMs: limits.visitorWindowMs,
    };
  }
  return { fits: true };
}
