// Suppressed readers in the embedded list: an address a relay refused for good (a hard bounce, three soft ones in a
// row) or whose reader pressed "spam" gets no mail of any kind again. The row stays, marked, and the mailbox is
// tombstoned (./tombstones.server.ts), so no other spelling of it is mailed and no import or restore revives it. The
// owner's `unsuppress` lifts a bounce or an import's word; a reader's own act only their own confirmed sign-up lifts.
import type { DatabaseSync } from "node:sqlite";
import { type Door, transition } from "~/newsletter/list/ledger";
import { ledgerState, type RowState } from "~/newsletter/list/sqlite/mailbox-state.server";
import type {
  SoftBounceOutcome,
  Suppression,
  SuppressOutcome,
  SuppressReason,
  UnsuppressOutcome,
} from "~/newsletter/list/subscriber-list.server";
import {
  leaveMailbox,
  liftTombstone,
  mailboxOf,
  SAME_MAILBOX,
  SIGNED_UP_HERE,
} from "~/newsletter/list/sqlite/tombstones.server";
import { transaction } from "~/utils/sqlite-transaction.server";

/** Soft bounces in a row (no delivery between) that make a reader suppressed as bounced. */
export const SOFT_BOUNCES_TO_SUPPRESS = 3;

interface Found {
  id: number;
  state: "pending" | "confirmed";
  reason: string | null;
  token: string | null;
  softBounces: number;
  lastSoftAt: string | null;
  here: number;
}

const find = (db: DatabaseSync, email: string) =>
  db
    .prepare(
      "select id, state, suppressed_reason as reason, unsubscribe_token as token, soft_bounces as softBounces, " +
        `last_soft_bounce_at as lastSoftAt, ${SIGNED_UP_HERE} as here from newsletter_subscribers ` +
        "where lower(email) = lower(?)",
    )
    .get(email) as Found | undefined;

/** The ledger's door each relay verdict is. */
const RELAY_DOORS: Record<SuppressReason, Door> = {
  bounced: "bounce",
  complained: "complaint",
  unsubscribed: "relay-unsubscribe",
};

const rowOf = (found: Found): RowState => ({ state: found.state, suppressed: found.reason, here: found.here });

function mark(
  db: DatabaseSync,
  email: string,
  found: Found | undefined,
  reason: SuppressReason,
  detail: string,
  at: Date,
) {
  const { state, reason: before } = ledgerState(db, email, found && rowOf(found));
  const step = transition(state, RELAY_DOORS[reason], before);
  if (step.tombstone && step.tombstone !== "lift") leaveMailbox(db, email, step.tombstone, { reason, at, detail });
  // A complaint or a relay's unsubscribe is the reader leaving the list: their token is remembered as a left one, so
  // no restore brings them back.
  if (reason !== "bounced" && found?.token) {
    db.prepare("insert or ignore into newsletter_unsubscribed (unsubscribe_token) values (?)").run(found.token);
  }
}

/**
 * Suppresses the reader with this address. The mailbox is tombstoned even when the address is not on the list (a
 * complaint about a mail to a reader who has since gone still says "never again"), or suppressed already (a
 * complaint after a bounce is the stronger word).
 */
export function suppress(
  db: DatabaseSync,
  email: string,
  reason: SuppressReason,
  detail: string,
  at: Date,
): SuppressOutcome {
  return transaction(db, () => {
    const found = find(db, email);
    mark(db, email, found, reason, detail, at);
    if (!found) return "unknown";
    return found.reason ? "already" : "suppressed";
  });
}

/**
 * Counts one soft bounce; the third in a row suppresses the reader as bounced. The same report twice (same `at`, as a
 * relay's retry carries) counts once.
 */
export function softBounce(db: DatabaseSync, email: string, detail: string, at: Date): SoftBounceOutcome {
  return transaction(db, () => {
    const found = find(db, email);
    if (!found) return "unknown";
    if (found.reason || found.lastSoftAt === at.toISOString()) return "already";
    const count = found.softBounces + 1;
    db.prepare("update newsletter_subscribers set soft_bounces = ?, last_soft_bounce_at = ? where id = ?").run(
      count,
      at.toISOString(),
      found.id,
    );
    if (count < SOFT_BOUNCES_TO_SUPPRESS) return "counted";
    mark(db, email, found, "bounced", `${count} soft bounces in a row; the last: ${detail}`, at);
    return "suppressed";
  });
}

/** A mail reached the reader's server: soft bounces are counted "in a row", so the count starts again. */
export function delivered(db: DatabaseSync, email: string): void {
  db.prepare(
    "update newsletter_subscribers set soft_bounces = 0 where lower(email) = lower(?) and soft_bounces > 0",
  ).run(email);
}

/** Every suppressed address, lower-cased, with its reason. */
export function suppressedAddresses(db: DatabaseSync): Map<string, Suppression["reason"]> {
  const rows = db
    .prepare(
      "select email, suppressed_reason as reason from newsletter_subscribers where suppressed_reason is not null",
    )
    .all() as { email: string; reason: Suppression["reason"] }[];
  return new Map(rows.map((row) => [row.email.toLowerCase(), row.reason]));
}

/**
 * Lifts a bounce (a mailbox that works again) or an import's word, for every spelling of the mailbox; refuses a
 * reader's own act (unsubscribe, complaint), saying why.
 */
export function unsuppress(db: DatabaseSync, email: string): UnsuppressOutcome {
  return transaction(db, () => {
    const found = find(db, email);
    const { state, reason } = ledgerState(db, email, found && rowOf(found));
    // A pending sign-up after leaving still has the tombstone its confirmation will lift: the owner's lift is asked
    // about that, as about a mailbox that left.
    const step = transition(reason ? "left" : state, "unsuppress", reason);
    if (step.tombstone !== "lift") {
      return reason && step.refused ? { kind: "refused", reason, why: step.refused } : { kind: "not-suppressed" };
    }
    liftTombstone(db, email);
    db.prepare(
      "update newsletter_subscribers set suppressed_reason = null, suppressed_at = null, suppressed_detail = null, " +
        "soft_bounces = 0, last_soft_bounce_at = null " +
        `where ${SAME_MAILBOX} and suppressed_reason is not null`,
    ).run({ mailbox: mailboxOf(db, email) });
    return { kind: "lifted" };
  });
}
