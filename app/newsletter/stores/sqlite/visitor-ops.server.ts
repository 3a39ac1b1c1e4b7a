// What visitors do to the embedded list: sign up, and leave by their link.
import { randomUUID } from "node:crypto";
import { maskEmail } from "~/newsletter/mask-email.server";
import { describeCause } from "~/utils/log.server";
import { isUnsubscribeToken, type SubscribeOutcome, type UnsubscribeOutcome } from "~/newsletter/stores/types.server";
import { type LiveConnection, sqliteOutcome } from "~/newsletter/stores/sqlite/connection.server";
import { transaction } from "~/utils/sqlite-transaction.server";
import type { FileHealth } from "~/newsletter/stores/sqlite/file-health.server";

/** Stores one address with a fresh unsubscribe token. Never throws. */
export function subscribe(live: LiveConnection, health: FileHealth, email: string): SubscribeOutcome {
  // A row written to a deleted file, or half-written to a full disk, would be acknowledged and then lost.
  const problem = health.cannotWrite();
  if (problem) {
    health.report(problem);
    return "failed";
  }
  try {
    live.current.insert.run(email, randomUUID());
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

/** Removes the subscriber holding `token` and remembers the token (a restore must not bring them back). */
export function unsubscribe(live: LiveConnection, token: string): UnsubscribeOutcome {
  if (!isUnsubscribeToken(token)) return "unknown";
  try {
    const conn = live.current;
    const removed = transaction(conn.db, () => {
      const row = conn.removeByToken.get(token) as { email: string } | undefined;
      if (row) conn.noteUnsubscribe.run(token);
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
