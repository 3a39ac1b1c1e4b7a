// Tombstones carried from an earlier list. A list's tombstones are hashes made with its own key; when a backup is
// restored into a list with another key (the file was lost and the restarted server began a new one before the
// restore), the backup's tombstones cannot be made again with the new key, since the list never kept the addresses. They
// are kept with the key they were made with, and every question about a mailbox asks them too, until a door of the
// ledger meets that mailbox again and its tombstone moves to the list's own key (./tombstones.server.ts).
import type { DatabaseSync } from "node:sqlite";
import { statement } from "~/utils/sqlite-statements.server";
import { type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";

export interface CarriedTombstone {
  key: string;
  mailbox: string;
  reason: LeftReason;
  at: string;
}

/**
 * The keys of the earlier lists whose tombstones this one carries (none, nearly always), one index seek per key: every
 * door asks, and a plain "distinct" would read every carried tombstone each time. Read each time, never cached: a
 * restore by the owner's command, in another process, may add one while the server runs.
 */
export const carriedKeys = (db: DatabaseSync): string[] =>
  (
    statement(
      db,
      "with recursive k(key) as (select min(key) from newsletter_carried_tombstones union all " +
        "select (select min(key) from newsletter_carried_tombstones where key > k.key) from k where k.key is not null) " +
        "select key from k where key is not null",
    ).all() as { key: string }[]
  ).map((row) => row.key);

/** The carried tombstones of the mailbox `email` reaches, one per earlier key at most. */
export function carriedOf(db: DatabaseSync, email: string): CarriedTombstone[] {
  const found: CarriedTombstone[] = [];
  for (const key of carriedKeys(db)) {
    const row = statement(
      db,
      "select key, mailbox, reason, at from newsletter_carried_tombstones where key = ? and mailbox = ?",
    ).get(key, mailboxHash(key, email)) as CarriedTombstone | undefined;
    if (row) found.push(row);
  }
  return found;
}

/** The strongest of some tombstones' reasons, and the latest time (null when there are none). */
export function strongest(tombstones: readonly { reason: LeftReason; at: string }[]) {
  if (tombstones.length === 0) return null;
  let reason: LeftReason | null = null;
  let at = "";
  for (const tombstone of tombstones) {
    reason = strongerReason(reason, tombstone.reason);
    if (tombstone.at > at) at = tombstone.at;
  }
  return { reason: reason!, at };
}

/** Removes the carried tombstones of the mailbox `email` reaches; the strongest of them, if any. */
export function dropCarried(db: DatabaseSync, email: string) {
  const found = carriedOf(db, email);
  const remove = statement(db, "delete from newsletter_carried_tombstones where key = ? and mailbox = ?");
  for (const { key, mailbox } of found) remove.run(key, mailbox);
  return strongest(found);
}

/** Every carried tombstone, oldest first. */
export const allCarried = (db: DatabaseSync): CarriedTombstone[] =>
  statement(
    db,
    "select key, mailbox, reason, at from newsletter_carried_tombstones order by at, key, mailbox",
  ).all() as unknown as CarriedTombstone[];

/** Keeps one tombstone made with another list's key (a stronger reason wins over one kept already). */
export function keepCarried(db: DatabaseSync, { key, mailbox, reason, at }: CarriedTombstone) {
  const found = statement(db, "select reason from newsletter_carried_tombstones where key = ? and mailbox = ?").get(
    key,
    mailbox,
  ) as { reason: LeftReason } | undefined;
  statement(
    db,
    "insert into newsletter_carried_tombstones (key, mailbox, reason, at) values (?1, ?2, ?3, ?4) " +
      "on conflict (key, mailbox) do update set reason = ?3, at = max(at, ?4)",
  ).run(key, mailbox, strongerReason(found?.reason ?? null, reason), at);
}
