// What a restore brings of a backup's ledger into a live list. Made with the live list's key, the backup's tombstones
// are the live list's own past: one missing now was lifted since (by the person's confirmation, or the owner), and
// stays lifted. Made with another key (the file was lost and the restarted server began a new list before the
// restore), they are news to the live list: it carries them (./carried-tombstones.server.ts), and its readers of those
// mailboxes leave as the ledger says, unless the person came back since by their own confirmation; a sign-up waiting
// for its confirmation keeps waiting, as a sign-up after leaving does.
import type { DatabaseSync } from "node:sqlite";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import type { BackupTombstone } from "~/newsletter/list/subscriber-list.server";
import { type CarriedTombstone, keepCarried } from "~/newsletter/list/sqlite/carried-tombstones.server";
import {
  ledgerKey,
  mailboxOf,
  rowReasonOf,
  SIGNED_UP_HERE,
  writeTombstone,
} from "~/newsletter/list/sqlite/tombstones.server";

export interface BackupLedger {
  key: string | null;
  tombstones: readonly BackupTombstone[];
}

/** The backup's tombstones made with another key than `own`, each with the key it was made with. */
export const foreignTombstones = (ledger: BackupLedger, own: string): CarriedTombstone[] =>
  ledger.tombstones.flatMap(({ mailbox, reason, at, key = ledger.key }) =>
    key && key !== own ? [{ key, mailbox, reason, at }] : [],
  );

interface LiveRow {
  email: string;
  /** The reader confirmed by their own mail's link, and when. */
  ownConfirmationAt: string | null;
  /** A sign-up waiting for its confirmation (1), not suppressed. */
  waiting: number;
  suppressed: string | null;
}

/** Carries a backup's foreign tombstones into the live list; how many it carried. Run inside the restore's transaction. */
export function carryLedger(db: DatabaseSync, ledger: BackupLedger): number {
  const foreign = foreignTombstones(ledger, ledgerKey(db));
  if (foreign.length === 0) return 0;
  for (const tombstone of foreign) keepCarried(db, tombstone);
  const byHash = new Map(foreign.map((tombstone) => [`${tombstone.key}:${tombstone.mailbox}`, tombstone]));
  const keys = [...new Set(foreign.map((tombstone) => tombstone.key))];
  const rows = db
    .prepare(
      "select email, iif(state = 'confirmed' and confirm_token_hash is not null and " +
        `${SIGNED_UP_HERE}, confirmed_at, null) as ownConfirmationAt, ` +
        "(state = 'pending' and suppressed_reason is null) as waiting, suppressed_reason as suppressed " +
        "from newsletter_subscribers",
    )
    .all() as unknown as LiveRow[];
  const matches = rows.flatMap((row) =>
    keys.flatMap((key) => {
      const tombstone = byHash.get(`${key}:${mailboxHash(key, row.email)}`);
      return tombstone ? [{ row, tombstone }] : [];
    }),
  );
  // The person's own confirmation after they left lifts their leaving, as it would have in the old list; first, so
  // another spelling of the same mailbox met before it does not suppress them.
  const lifts = db.prepare("delete from newsletter_carried_tombstones where key = ? and mailbox = ?");
  for (const { row, tombstone } of matches) {
    if (row.ownConfirmationAt === null || row.ownConfirmationAt <= tombstone.at) continue;
    lifts.run(tombstone.key, tombstone.mailbox);
    byHash.delete(`${tombstone.key}:${tombstone.mailbox}`);
  }
  // The rest move to the list's key; the rows they name stop being mailed, except a sign-up waiting for its
  // confirmation: that is the person asking again, and their confirmation lifts the tombstone, as after any leaving.
  const suppress = db.prepare(
    "update newsletter_subscribers set suppressed_reason = ?, suppressed_at = ?, suppressed_detail = '', " +
      "confirm_token_hash = null, previous_confirm_token_hash = null where lower(email) = lower(?)",
  );
  for (const { row, tombstone } of matches) {
    if (!byHash.has(`${tombstone.key}:${tombstone.mailbox}`)) continue;
    lifts.run(tombstone.key, tombstone.mailbox);
    writeTombstone(db, mailboxOf(db, row.email), tombstone.reason, tombstone.at);
    if (!row.waiting && !row.suppressed) suppress.run(rowReasonOf(tombstone.reason), tombstone.at, row.email);
  }
  return foreign.length;
}
