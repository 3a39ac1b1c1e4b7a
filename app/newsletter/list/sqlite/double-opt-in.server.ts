/**
 * Double opt-in in the embedded store: the pending state, the confirmation token's hash, the 24-hour rule, expiry,
 * and each reader's consent record. Every function takes the clock (`now`, milliseconds) so tests can move it.
 *
 * A reader is `pending` from the sign-up until they press 'Confirm' on the page their mail links to; a pending reader
 * is removed 7 days after their latest confirmation mail was asked for, and may sign up again. The token itself is
 * never stored: only its SHA-256, set when the mail is composed (so the outbox never holds it), valid for 7 days. The
 * hash of the mail before the latest one is kept too, so a second mail leaves the first one's link working.
 */
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { ConfirmOutcome, Consent, IssueOutcome, Reader, SignUp } from "~/newsletter/list/subscriber-list.server";
import { transaction } from "~/utils/sqlite-transaction.server";
import { transition } from "~/newsletter/list/ledger";
import { ledgerState, type RowState } from "~/newsletter/list/sqlite/mailbox-state.server";
import { liftTombstone, SIGNED_UP_HERE } from "~/newsletter/list/sqlite/tombstones.server";

export const DAY_MS = 24 * 60 * 60_000;
export const PENDING_FOR_MS = 7 * DAY_MS;
export const TOKEN_VALID_MS = 7 * DAY_MS;
export const RESEND_AFTER_MS = DAY_MS;

const iso = (ms: number) => new Date(ms).toISOString();

/** Removes pending readers whose time ran out (never a suppressed one); their addresses. */
export function expirePending(db: DatabaseSync, now: number): string[] {
  const rows = db
    .prepare(
      // A suppressed reader stays (their address was refused): removed, they could sign up and be mailed again.
      "delete from newsletter_subscribers where state = 'pending' and suppressed_reason is null and " +
        "coalesce(confirm_requested_at, created_at) <= ? returning email",
    )
    .all(iso(now - PENDING_FOR_MS)) as { email: string }[];
  return rows.map((row) => row.email);
}

/**
 * A sign-up with confirmation, as the ledger's table says: a new address, or one whose mailbox left, is stored pending
 * (with its consent) and gets a mail; a pending one gets another mail only when the last was asked for 24 hours ago or
 * more; a reader is told "duplicate".
 */
export function signUpPending(db: DatabaseSync, email: string, consent: Consent, now: number, mayMail = true): SignUp {
  return transaction(db, () => {
    expirePending(db, now);
    const found = db
      .prepare(
        "select id, state, coalesce(confirm_requested_at, created_at) as requested, suppressed_reason as suppressed, " +
          `${SIGNED_UP_HERE} as here from newsletter_subscribers where lower(email) = lower(?)`,
      )
      .get(email) as (RowState & { id: number; requested: string }) | undefined;
    const { state, reason } = ledgerState(db, email, found);
    const step = transition(state, "sign-up", reason);
    if (step.refused) return { outcome: "duplicate", mail: false };
    if (state === "pending") {
      // A reminder, at most one a day: the person may have lost the first mail.
      if (found!.requested > iso(now - RESEND_AFTER_MS)) return { outcome: "duplicate", mail: false };
      if (!mayMail) return { outcome: "duplicate", mail: false, held: true };
      db.prepare("update newsletter_subscribers set confirm_requested_at = ? where id = ?").run(iso(now), found!.id);
      return { outcome: "duplicate", mail: true };
    }
    // Over the fair limits: answered as a new sign-up, and nothing stored, so the address can sign up again later.
    if (!mayMail) return { outcome: "subscribed", mail: false, held: true };
    storeWording(db, consent, now);
    if (found) {
      // The suppressed row of a mailbox that left becomes the new sign-up; its tombstone stays until they confirm.
      db.prepare(
        "update newsletter_subscribers set state = 'pending', created_at = ?1, unsubscribe_token = ?2, " +
          "confirmed_at = null, consent_page = ?3, consent_version = ?4, confirm_requested_at = ?1, " +
          "confirm_token_hash = null, confirm_token_at = null, previous_confirm_token_hash = null, " +
          "previous_confirm_token_at = null, suppressed_reason = null, suppressed_at = null, " +
          "suppressed_detail = null, soft_bounces = 0, last_soft_bounce_at = null where id = ?5",
      ).run(iso(now), randomUUID(), consent.page, consent.version, found.id);
    } else {
      db.prepare(
        "insert into newsletter_subscribers (email, created_at, unsubscribe_token, state, consent_page, " +
          "consent_version, confirm_requested_at, mailbox) values (?1, ?2, ?3, 'pending', ?4, ?5, ?6, mailbox_hash(?1))",
      ).run(email, iso(now), randomUUID(), consent.page, consent.version, iso(now));
    }
    return { outcome: "subscribed", mail: step.confirmationMail === true };
  });
}

/** Keeps the words a reader agreed to, once per version. */
export const storeWording = (db: DatabaseSync, consent: Consent, now: number) =>
  db
    .prepare("insert or ignore into newsletter_consent_wordings (version, wording, first_used_at) values (?, ?, ?)")
    .run(consent.version, consent.wording, iso(now));

/** Stores the hash of the token about to be mailed; what became of the reader. */
export function issueToken(db: DatabaseSync, email: string, tokenHash: string, now: number): IssueOutcome {
  expirePending(db, now);
  const row = db
    .prepare("select state, suppressed_reason as suppressed from newsletter_subscribers where lower(email) = lower(?)")
    .get(email) as { state: string; suppressed: string | null } | undefined;
  // A suppressed reader gets no confirmation mail: for the mail, they are gone.
  if (!row || row.suppressed) return "gone";
  if (row.state !== "pending") return "confirmed";
  // The token mailed before stays valid for its own 7 days: a reader may open the first of two mails. The same token
  // again (a retry of the same mail) keeps the one before it.
  db.prepare(
    "update newsletter_subscribers set " +
      "previous_confirm_token_hash = iif(confirm_token_hash = ?1, previous_confirm_token_hash, confirm_token_hash), " +
      "previous_confirm_token_at = iif(confirm_token_hash = ?1, previous_confirm_token_at, confirm_token_at), " +
      "confirm_token_hash = ?1, confirm_token_at = ?2 where lower(email) = lower(?3)",
  ).run(tokenHash, iso(now), email);
  return "issued";
}

/**
 * Confirms the pending reader whose token has this hash, if it is still valid. The hash stays with the reader once
 * confirmed (a hash of a used token opens nothing), so a reused link can be told apart from a wrong one.
 */
export function confirmByHash(
  db: DatabaseSync,
  tokenHash: string,
  now: number,
  onConfirmed?: (reader: Reader) => void,
): ConfirmOutcome {
  return transaction(db, () => confirmNow(db, tokenHash, now, onConfirmed));
}

function confirmNow(
  db: DatabaseSync,
  tokenHash: string,
  now: number,
  onConfirmed?: (reader: Reader) => void,
): ConfirmOutcome {
  const validSince = iso(now - TOKEN_VALID_MS);
  const row = db
    .prepare(
      "update newsletter_subscribers set state = 'confirmed', confirmed_at = ? where state = 'pending' and (" +
        "(confirm_token_hash = ? and confirm_token_at > ?) or " +
        "(previous_confirm_token_hash = ? and previous_confirm_token_at > ?)) returning email, unsubscribe_token",
    )
    .get(iso(now), tokenHash, validSince, tokenHash, validSince) as
    { email: string; unsubscribe_token: string } | undefined;
  if (row) {
    // The person's own confirmation by mail: the one act that lifts their own leaving.
    if (transition("pending", "confirm").tombstone === "lift") liftTombstone(db, row.email);
    // Once: only the update that turned the reader from pending to confirmed returns a row.
    onConfirmed?.({ email: row.email, token: row.unsubscribe_token });
    return "confirmed";
  }
  const confirmed = db
    .prepare(
      "select 1 from newsletter_subscribers where state = 'confirmed' and " +
        "(confirm_token_hash = ? or previous_confirm_token_hash = ?)",
    )
    .get(tokenHash, tokenHash);
  return confirmed ? "already" : "unknown";
}
