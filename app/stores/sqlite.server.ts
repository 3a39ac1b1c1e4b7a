import { mkdirSync } from "node:fs";
import path from "node:path";
// A static import of the built-in keeps the module external in the server build (checked by the HTTP tests, which
// run build/index.js); node:sqlite needs no dependency and no native build.
import { DatabaseSync } from "node:sqlite";
import { maskEmail } from "~/lib/mask-email";
import { describeCause, type SubscribeOutcome, type SubscriberStore } from "~/stores/types";

export const SQLITE_FILE_NAME = "newsletter.sqlite";
/** SQLITE_CONSTRAINT_UNIQUE: the extended result code of a unique index violation, our "duplicate". */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SCHEMA_VERSION = 1;

const SCHEMA = `
  create table if not exists newsletter_subscribers (
    id integer primary key,
    email text not null,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  create unique index if not exists newsletter_subscribers_email_lower_key
    on newsletter_subscribers (lower(email));
`;

export interface SqliteStore extends SubscriberStore {
  readonly kind: "sqlite";
  readonly file: string;
  /** `select 1` answers: the file is open and readable. */
  healthy(): boolean;
  close(): void;
}

/** Maps a failed insert to an outcome: only a unique violation is a duplicate, anything else is a failure. */
export function sqliteOutcome(error: unknown): Exclude<SubscribeOutcome, "subscribed"> {
  const errcode = typeof error === "object" && error !== null ? (error as { errcode?: unknown }).errcode : undefined;
  return errcode === SQLITE_CONSTRAINT_UNIQUE ? "duplicate" : "failed";
}

/**
 * Opens (creating when needed) the embedded store in `dataDir`. Throws when the folder or file cannot be created or
 * written, so a bad DATA_DIR stops start-up instead of failing every sign-up later.
 */
export function openSqliteStore(dataDir: string): SqliteStore {
  const directory = path.resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, SQLITE_FILE_NAME);
  const db = new DatabaseSync(file);
  try {
    // Another process holding a write lock (it should not: one process owns the file) makes us wait, not hang.
    db.exec("pragma busy_timeout = 2000");
    const { journal_mode: mode } = db.prepare("pragma journal_mode = wal").get() as { journal_mode: string };
    if (mode !== "wal") console.warn(`Newsletter store: ${file} could not use WAL (journal mode is ${mode}).`);
    db.exec(SCHEMA);
    // A real write, so a read-only file or folder fails here rather than on the first visitor's sign-up.
    db.exec(`pragma user_version = ${SCHEMA_VERSION}`);
  } catch (error) {
    db.close();
    throw error;
  }

  const insert = db.prepare("insert into newsletter_subscribers (email) values (?)");
  const ping = db.prepare("select 1 as ok");

  return {
    kind: "sqlite",
    file,
    async subscribe(email) {
      try {
        insert.run(email);
        return "subscribed";
      } catch (error) {
        const outcome = sqliteOutcome(error);
        if (outcome === "failed") {
          console.error(`Newsletter: SQLite insert for ${maskEmail(email)} failed: ${describeCause(error)}`);
        }
        return outcome;
      }
    },
    healthy() {
      try {
        return (ping.get() as { ok?: number } | undefined)?.ok === 1;
      } catch {
        return false;
      }
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}
