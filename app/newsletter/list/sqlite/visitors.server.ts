// What visitors do to the embedded list: sign up, and leave by their link.
import { randomUUID } from "node:crypto";
import { maskEmail } from "~/utils/mask-email.server";
import { describeCause } from "~/utils/log.server";
import {
  type Consent,
  type SignUp,
  type SignUpRequest,
  type SubscribeOutcome,
  type UnsubscribeOutcome,
} from "~/newsletter/list/subscriber-list.server";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";
import { signUpPending, storeWording } from "~/newsletter/list/sqlite/double-opt-in.server";
import { type LiveConnection, sqliteOutcome } from "~/newsletter/list/sqlite/connection.server";
import { transaction } from "~/utils/sqlite-transaction.server";
import { transition } from "~/newsletter/list/ledger";
import { ledgerState, rowState, type RowState } from "~/newsletter/list/sqlite/mailbox-state.server";
import { leaveMailbox, rowReasonOf, SIGNED_UP_HERE } from "~/newsletter/list/sqlite/tombstones.server";
import type { FileHealth } from "~/newsletter/list/sqlite/file-health.server";

/** The list's file cannot take a write now (the health check says why, in the log). */
export class StoreUnwritable extends Error {
  override name = "StoreUnwritable";
  constructor() {
    super("the list cannot be written now");
  }
}

/** A sign-up, confirmed at once or pending with its consent (see SignUpRequest). Never throws. */
export function signUp(live: LiveConnection, health: FileHealth, email: string, request: SignUpRequest): SignUp {
  if (request.state === "confirmed") return { outcome: subscribe(live, health, email, request), mail: false };
  const problem = health.cannotWrite();
  try {
    if (problem) {
      health.report(problem);
      throw new StoreUnwritable();
    }
    const result = signUpPending(live.current.db, email, request.consent, request.now, request.mayMail);
    health.wrote(true);
    return result;
  } catch (error) {
    console.error(`Newsletter: the sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
    return { outcome: "failed", mail: false };
  }
}

/** Stores one address, confirmed, with its consent record and a fresh unsubscribe token. Never throws. */
function subscribe(
  live: LiveConnection,
  health: FileHealth,
  email: string,
  { consent, now }: { consent: Consent; now: number },
): SubscribeOutcome {
  // A row written to a deleted file, or half-written to a full disk, would be acknowledged and then lost.
  const problem = health.cannotWrite();
  if (problem) {
    health.report(problem);
    return "failed";
  }
  try {
    const db = live.current.db;
    transaction(db, () => {
      const { state, reason } = ledgerState(db, email, rowState(db, email));
      // An address on the list already: the unique index answers "duplicate", as it always has.
      live.current.insert.run(email, randomUUID(), new Date(now).toISOString(), consent.page, consent.version);
      storeWording(db, consent, now);
      // With mail off nobody can confirm: a mailbox that left is stored, and never mailed.
      if (transition(state, "sign-up-without-mail", reason).to === "left" && reason) {
        leaveMailbox(db, email, reason, { reason: rowReasonOf(reason), at: new Date(), detail: "" });
      }
    });
    health.wrote(true);
    return "subscribed";
  } catch (error) {
    const outcome = sqliteOutcome(error);
    if (outcome === "failed") {
      health.forgetWrites();
      console.error(`Newsletter: SQLite insert for ${maskEmail(email)} failed: ${describeCause(error)}`);
    }
    return outcome;
  }
}

/**
 * Removes the subscriber holding `token`, remembers the token (a restore must not bring them back) and tombstones
 * their mailbox (no other spelling of it is mailed either).
 */
export function unsubscribe(live: LiveConnection, token: string): UnsubscribeOutcome {
  if (!isUnsubscribeToken(token)) return "unknown";
  try {
    const conn = live.current;
    const removed = transaction(conn.db, () => {
      const row = conn.db
        .prepare(
          `select email, state, suppressed_reason as suppressed, ${SIGNED_UP_HERE} as here ` +
            "from newsletter_subscribers where unsubscribe_token = ?",
        )
        .get(token) as (RowState & { email: string }) | undefined;
      if (!row) return undefined;
      const { state, reason } = ledgerState(conn.db, row.email, row);
      const step = transition(state, "unsubscribe", reason);
      conn.removeByToken.run(token);
      conn.noteUnsubscribe.run(token);
      if (step.tombstone && step.tombstone !== "lift") {
        const at = new Date();
        leaveMailbox(conn.db, row.email, step.tombstone, { reason: "unsubscribed", at, detail: "left by their link" });
      }
      return row;
    });
    if (!removed) return "unknown";
    console.info(`Newsletter: ${maskEmail(removed.email)} unsubscribed.`);
    return "removed";
  } catch (error) {
    console.error(`Newsletter: SQLite unsubscribe failed: ${describeCause(error)}`);
    return "failed";
  }
}
