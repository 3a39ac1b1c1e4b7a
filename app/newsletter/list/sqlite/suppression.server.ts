// Suppressed readers in the embedded list: an address a relay refused for good (a hard bounce, three soft ones in a
// row) or whose reader pressed "spam" gets no mail of any kind again until the owner lifts it. The row stays (so a
// new sign-up is a duplicate and an import cannot revive it); only the owner's `unsuppress` clears it.
import type { DatabaseSync } from "node:sqlite";
import type {
  SoftBounceOutcome,
  Suppression,
  SuppressOutcome,
  SuppressReason,
} from "~/newsletter/list/subscriber-list.server";
import { transaction } from "~/utils/sqlite-transaction.server";

/** Soft bounces in a row (no delivery between) that make a reader suppressed as bounced. */
export const SOFT_BOUNCES_TO_SUPPRESS = 3;

interface Found {
  id: number;
  reason: string | null;
  token: string | null;
  softBounces: number;
  lastSoftAt: string | null;
}

const find = (db: DatabaseSync, email: string) =>
  db
    .prepare(
      "select id, suppressed_reason as reason, unsubscribe_token as token, soft_bounces as softBounces, " +
        "last_soft_bounce_at as lastSoftAt from newsletter_subscribers where lower(email) = lower(?)",
    )
    .get(email) as Found | undefined;

function mark(db: DatabaseSync, found: Found, reason: SuppressReason, detail: string, at: Date) {
  // A pending reader's mailed link stops working: a suppressed address cannot be confirmed into a send.
  db.prepare(
    "update newsletter_subscribers set suppressed_reason = ?, suppressed_at = ?, suppressed_detail = ?, " +
      "confirm_token_hash = null, previous_confirm_token_hash = null where id = ?",
  ).run(reason, at.toISOString(), detail, found.id);
  // A complaint is the reader leaving the list: their token is remembered as a left one, so no restore brings them back.
  if (reason === "complained" && found.token) {
    db.prepare("insert or ignore into newsletter_unsubscribed (unsubscribe_token) values (?)").run(found.token);
  }
}

/** Suppresses the reader with this address, unless they are suppressed already or not on the list. */
export function suppress(
  db: DatabaseSync,
  email: string,
  reason: SuppressReason,
  detail: string,
  at: Date,
): SuppressOutcome {
  return transaction(db, () => {
    const found = find(db, email);
    if (!found) return "unknown";
    if (found.reason) return "already";
    mark(db, found, reason, detail, at);
    return "suppressed";
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
    mark(db, found, "bounced", `${count} soft bounces in a row; the last: ${detail}`, at);
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

/** Lifts a suppression (a mailbox that was full); whether the address was suppressed. */
export function unsuppress(db: DatabaseSync, email: string): boolean {
  const changed = db
    .prepare(
      "update newsletter_subscribers set suppressed_reason = null, suppressed_at = null, suppressed_detail = null, " +
        "soft_bounces = 0, last_soft_bounce_at = null where lower(email) = lower(?) and suppressed_reason is not null",
    )
    .run(email);
  return Number(changed.changes) > 0;
}
