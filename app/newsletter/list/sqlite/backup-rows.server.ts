// What a restore writes into a list, fresh or live: each reader's row with their confirmation state and consent
// record, and the consent wordings those records point to. A reader's consent is proof the owner must keep: a restore
// that dropped it would turn a pending reader into a confirmed one (the schema's rule for readers from before).
import { DatabaseSync } from "node:sqlite";
import { applySchema, READERS_FROM_BEFORE } from "~/newsletter/list/sqlite/schema.server";
import type { BackupRow, BackupTombstone, ConsentWording } from "~/newsletter/list/subscriber-list.server";
import { writeTombstone } from "~/newsletter/list/sqlite/tombstones.server";
import { keepCarried } from "~/newsletter/list/sqlite/carried-tombstones.server";

/** Each subscriber column a backup's rows carry, with the key a row holds it under (the id is the store's own). */
export const BACKUP_COLUMNS = [
  ["email", "email"],
  ["created_at", "createdAt"],
  ["unsubscribe_token", "unsubscribeToken"],
  ["state", "state"],
  ["confirmed_at", "confirmedAt"],
  ["consent_page", "consentPage"],
  ["consent_version", "consentVersion"],
  ["confirm_requested_at", "confirmRequestedAt"],
  ["confirm_token_hash", "confirmTokenHash"],
  ["confirm_token_at", "confirmTokenAt"],
  ["previous_confirm_token_hash", "previousConfirmTokenHash"],
  ["previous_confirm_token_at", "previousConfirmTokenAt"],
  ["suppressed_reason", "suppressedReason"],
  ["suppressed_at", "suppressedAt"],
  ["suppressed_detail", "suppressedDetail"],
] as const;

/** Writes one backup row with the token it is to keep (a new one when its own is missing or taken). */
export function rowInserter(db: DatabaseSync) {
  const columns = BACKUP_COLUMNS.map(([column]) => column);
  const insert = db.prepare(
    `insert into newsletter_subscribers (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`,
  );
  return (row: BackupRow, unsubscribeToken: string, confirmTokenHash = row.confirmTokenHash ?? null) =>
    insert.run(
      row.email,
      row.createdAt,
      unsubscribeToken,
      row.state ?? READERS_FROM_BEFORE,
      row.confirmedAt ?? null,
      row.consentPage ?? null,
      row.consentVersion ?? null,
      row.confirmRequestedAt ?? null,
      confirmTokenHash,
      row.confirmTokenAt ?? null,
      confirmTokenHash === null ? null : (row.previousConfirmTokenHash ?? null),
      row.previousConfirmTokenAt ?? null,
      row.suppressedReason ?? null,
      row.suppressedAt ?? null,
      row.suppressedDetail ?? null,
    );
}

/**
 * Writes a backup's tombstones into a new list holding the backup's key (`own`, see writeFreshStore); those the
 * backup carried from an earlier list stay carried, with their key.
 */
export function insertTombstones(db: DatabaseSync, tombstones: readonly BackupTombstone[], own: string) {
  for (const { mailbox, reason, at, key = own } of tombstones) {
    if (key === own) writeTombstone(db, mailbox, reason, at);
    else keepCarried(db, { key, mailbox, reason, at });
  }
}

/** Adds the wordings the list lacks; one it has is kept as it is (a version is a digest of its wording). */
export function insertWordings(db: DatabaseSync, wordings: readonly ConsentWording[]) {
  const insert = db.prepare(
    "insert or ignore into newsletter_consent_wordings (version, wording, first_used_at) values (?, ?, ?)",
  );
  for (const { version, wording, firstUsedAt } of wordings) insert.run(version, wording, firstUsedAt);
}

/**
 * Opens a store file being written under a name no one else reads (it is renamed when complete), with the store's
 * schema. No fsync of its own: the finished file is fsynced once before its rename.
 */
export function openNewStoreFile(partial: string): DatabaseSync {
  const db = new DatabaseSync(partial);
  db.exec("pragma synchronous = off; pragma journal_mode = delete");
  applySchema(db);
  return db;
}

/**
 * Gives a new store file the ledger key its tombstones were made with, so they still name their mailboxes; its rows'
 * suppressions come with their tombstones, so none are to be made from the rows again.
 */
export function keepLedgerKey(db: DatabaseSync, key: string) {
  const keep = db.prepare("insert into newsletter_ledger (name, value) values (?, ?)");
  keep.run("key", key);
  keep.run("tombstones-from-rows", "done");
}
