import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";

/** The state of readers who signed up before double opt-in existed (and of their rows in older backups). */
export const READERS_FROM_BEFORE = "confirmed";

/**
 * The store's tables and indexes, in order. Every step is idempotent ("if not exists", or a check before an alter),
 * and every step runs on every open: a file from any earlier version ends up with the whole schema, and a new table or
 * column is one more entry at the end. (No version number: the header's user_version is the write check's.)
 */
export const MIGRATIONS: readonly ((db: DatabaseSync) => void)[] = [
  (db) =>
    db.exec(`
      create table if not exists newsletter_subscribers (
        id integer primary key,
        email text not null,
        created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        unsubscribe_token text
      );
      create unique index if not exists newsletter_subscribers_email_lower_key
        on newsletter_subscribers (lower(email));
    `),
  // Who left by their own link, by token only (never the address): a restore must not bring them back unasked.
  (db) =>
    db.exec(`
      create table if not exists newsletter_unsubscribed (
        unsubscribe_token text primary key,
        at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) without rowid;
    `),
  // Version 2 gave every subscriber an unsubscribe token; a file from version 1 gets the column and the tokens.
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "unsubscribe_token", "text"),
  (db) => {
    const missing = db.prepare("select id from newsletter_subscribers where unsubscribe_token is null").all() as {
      id: number;
    }[];
    const give = db.prepare("update newsletter_subscribers set unsubscribe_token = ? where id = ?");
    for (const { id } of missing) give.run(randomUUID(), id);
  },
  (db) =>
    db.exec(
      "create unique index if not exists newsletter_subscribers_unsubscribe_token_key " +
        "on newsletter_subscribers (unsubscribe_token)",
    ),
  // Double opt-in and proof of consent (app/newsletter/confirm-sqlite.server.ts). Readers from before are confirmed.
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "state", `text not null default '${READERS_FROM_BEFORE}'`),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "confirmed_at", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "consent_page", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "consent_version", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "confirm_requested_at", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "confirm_token_hash", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "confirm_token_at", "text"),
  (db) =>
    db.exec(`
      create unique index if not exists newsletter_subscribers_confirm_token_key
        on newsletter_subscribers (confirm_token_hash);
      -- Each wording a reader agreed to, kept as it was: a later edit of the dialog adds a version, never rewrites one.
      create table if not exists newsletter_consent_wordings (
        version text primary key,
        wording text not null,
        first_used_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) without rowid;
    `),
  // Suppression (./suppression.server.ts): why and when a reader gets no mail again, and their soft bounces in a row.
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "suppressed_reason", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "suppressed_at", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "suppressed_detail", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "soft_bounces", "integer not null default 0"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "last_soft_bounce_at", "text"),
  // The token of the mail before the latest one (./double-opt-in.server.ts): a second mail keeps the first link working.
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "previous_confirm_token_hash", "text"),
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "previous_confirm_token_at", "text"),
  (db) =>
    db.exec(
      "create index if not exists newsletter_subscribers_previous_confirm_token " +
        "on newsletter_subscribers (previous_confirm_token_hash)",
    ),
  // The ledger (./tombstones.server.ts): its key, kept with the list, and who left by mailbox (a keyed hash, never
  // the address), why and when.
  (db) =>
    db.exec(`
      create table if not exists newsletter_ledger (name text primary key, value text not null) without rowid;
      create table if not exists newsletter_tombstones (
        mailbox text primary key,
        reason text not null check (reason in ('unsubscribed', 'complained', 'bounced', 'imported')),
        at text not null
      ) without rowid;
    `),
  // Each row's mailbox hash, stored and indexed: the ledger's "every spelling of this mailbox" is then one index
  // range, not a keyed hash of every row per question (which made an import's writes quadratic). Filled by
  // ./tombstones.server.ts, where the key is; a row not yet filled is still found (sameMailbox).
  (db) => addColumnIfMissing(db, "newsletter_subscribers", "mailbox", "text"),
  (db) => db.exec("create index if not exists newsletter_subscribers_mailbox on newsletter_subscribers (mailbox)"),
  // Tombstones an earlier list made with its own key, carried by a restore into a list with another key
  // (./carried-tombstones.server.ts): a hash cannot be made again with this list's key without the address.
  (db) =>
    db.exec(`
      create table if not exists newsletter_carried_tombstones (
        key text not null,
        mailbox text not null,
        reason text not null check (reason in ('unsubscribed', 'complained', 'bounced', 'imported')),
        at text not null,
        primary key (key, mailbox)
      ) without rowid;
    `),
];

/** Brings `db` to the current schema (see MIGRATIONS). */
export function applySchema(db: DatabaseSync) {
  for (const step of MIGRATIONS) step(db);
}

/** The names of a table's columns (none when it does not exist). */
export function columnsOf(db: DatabaseSync, table: string): Set<string> {
  const rows = db.prepare(`pragma table_info(${JSON.stringify(table)})`).all() as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

/** Adds a column to an existing table unless it is there already. */
export function addColumnIfMissing(db: DatabaseSync, table: string, column: string, definition: string) {
  if (columnsOf(db, table).has(column)) return;
  db.exec(`alter table ${JSON.stringify(table)} add column ${JSON.stringify(column)} ${definition}`);
}
