import { closeSync, fstatSync, openSync, statSync } from "node:fs";
// A static import of the built-in keeps the module external in the server build (checked by the HTTP tests, which
// run build/index.js); node:sqlite needs no dependency and no native build.
import { DatabaseSync } from "node:sqlite";
import type { SubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { applySchema } from "~/newsletter/list/sqlite/schema.server";
import { openLedger } from "~/newsletter/list/sqlite/tombstones.server";

/** SQLITE_CONSTRAINT_UNIQUE: the extended result code of a unique index violation, our "duplicate". */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;
export const SQLITE_IOERR = 10;
/** SQLite result codes (the primary code, the low byte of an extended one) that mean the file itself is the trouble. */
export const FILE_TROUBLE = new Set([SQLITE_IOERR, 11 /* CORRUPT */, 26 /* NOTADB */]);

/**
 * A write that changes nothing anyone reads (the header's user_version) yet commits through the journal to the disk
 * like a sign-up: at start-up it proves the file and its folder writable, in a health probe that they still are.
 */
const WRITE_CHECK = "pragma user_version = 0";

/** The store's file exists but SQLite cannot use it (damaged, not a database, I/O errors): not a settings problem. */
export class StoreFileError extends Error {
  override name = "StoreFileError";
}

/** The SQLite result code an error carries, its own or its cause's (a wrapped one), if any. */
export function sqliteCode(error: unknown): number | undefined {
  const { errcode, cause } = (error ?? {}) as { errcode?: unknown; cause?: unknown };
  if (typeof errcode === "number") return errcode;
  return cause === undefined ? undefined : sqliteCode(cause);
}

/** Maps a failed insert to an outcome: only a unique violation is a duplicate, anything else is a failure. */
export function sqliteOutcome(error: unknown): Exclude<SubscribeOutcome, "subscribed"> {
  const errcode = typeof error === "object" && error !== null ? (error as { errcode?: unknown }).errcode : undefined;
  return errcode === SQLITE_CONSTRAINT_UNIQUE ? "duplicate" : "failed";
}

/** A file's identity: a file deleted or replaced under the open connection is no longer where we write. */
export const identity = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
};

/** Opens `file` in WAL mode with the current schema, and proves it writable; the statements the store runs. */
export function connect(file: string) {
  const db = new DatabaseSync(file);
  try {
    // Another process holding a write lock (it should not: one process owns the file) makes us wait, not hang.
    db.exec("pragma busy_timeout = 2000");
    const { journal_mode: mode } = db.prepare("pragma journal_mode = wal").get() as { journal_mode: string };
    if (mode !== "wal") console.warn(`Newsletter store: ${file} could not use WAL (journal mode is ${mode}).`);
    applySchema(db);
    openLedger(db);
    // A real write, so a read-only file or folder fails here rather than on the first visitor's sign-up.
    db.exec(WRITE_CHECK);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    db,
    // A sign-up while mail is off: confirmed at once, with the consent the reader gave in the dialog.
    insert: db.prepare(
      "insert into newsletter_subscribers (email, unsubscribe_token, mailbox, created_at, confirmed_at, " +
        "consent_page, consent_version) values (?1, ?2, mailbox_hash(?1), ?3, ?3, ?4, ?5)",
    ),
    removeByToken: db.prepare("delete from newsletter_subscribers where unsubscribe_token = ? returning email"),
    noteUnsubscribe: db.prepare("insert or ignore into newsletter_unsubscribed (unsubscribe_token) values (?)"),
    removeByEmail: db.prepare("delete from newsletter_subscribers where lower(email) = lower(?)"),
    ping: db.prepare("select 1 as ok"),
    touch: db.prepare(WRITE_CHECK),
    // The three files the connection has open: the database, its write-ahead log and the log's index.
    files: [file, `${file}-wal`, `${file}-shm`].map((name) => ({ name, id: identity(name) })),
    // Our own handle on the database file: its link count tells a file deleted (none left) from one moved away.
    handle: { fd: openSync(file, "r"), open: true },
  };
}

export type Connection = ReturnType<typeof connect>;

/** Whether the database file this connection opened has been deleted: no name in any folder leads to it now. */
export const fileDeleted = (conn: Connection) => conn.handle.open && fstatSync(conn.handle.fd).nlink === 0;

/** Closes the connection and our handle on its file (either may be closed already). */
export function disconnect(conn: Connection) {
  if (conn.db.isOpen) conn.db.close();
  if (conn.handle.open) closeSync(conn.handle.fd);
  conn.handle.open = false;
}

/** The store's connection, which the `-wal` rescue replaces: every operation reads `current` when it runs. */
export interface LiveConnection {
  current: Connection;
  readonly file: string;
  readonly directory: string;
  closed: boolean;
}

export const countRows = (db: DatabaseSync) =>
  (db.prepare("select count(*) as n from newsletter_subscribers").get() as { n: number }).n;
