import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, statfsSync, statSync } from "node:fs";
import path from "node:path";
// A static import of the built-in keeps the module external in the server build (checked by the HTTP tests, which
// run build/index.js); node:sqlite needs no dependency and no native build.
import { DatabaseSync } from "node:sqlite";
import { maskEmail } from "~/utils/mask-email.server";
import {
  describeCause,
  isUnsubscribeToken,
  type SubscribeOutcome,
  type SubscriberStore,
} from "~/newsletter/stores/types.server";

export const SQLITE_FILE_NAME = "newsletter.sqlite";
/** SQLITE_CONSTRAINT_UNIQUE: the extended result code of a unique index violation, our "duplicate". */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SCHEMA_VERSION = 2;

const SCHEMA = `
  create table if not exists newsletter_subscribers (
    id integer primary key,
    email text not null,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    unsubscribe_token text
  );
  create unique index if not exists newsletter_subscribers_email_lower_key
    on newsletter_subscribers (lower(email));
`;

/** Version 2 gave every subscriber an unsubscribe token; a file from version 1 gets the column and the tokens. */
function migrate(db: DatabaseSync) {
  const columns = db.prepare("pragma table_info(newsletter_subscribers)").all() as { name: string }[];
  if (!columns.some((column) => column.name === "unsubscribe_token")) {
    db.exec("alter table newsletter_subscribers add column unsubscribe_token text");
  }
  const missing = db.prepare("select id from newsletter_subscribers where unsubscribe_token is null").all() as {
    id: number;
  }[];
  const give = db.prepare("update newsletter_subscribers set unsubscribe_token = ? where id = ?");
  for (const { id } of missing) give.run(randomUUID(), id);
  db.exec(
    "create unique index if not exists newsletter_subscribers_unsubscribe_token_key " +
      "on newsletter_subscribers (unsubscribe_token)",
  );
}

/** One subscriber as the owner's tools show it. */
export interface SubscriberRow {
  email: string;
  createdAt: string;
  unsubscribeToken: string;
}

export interface SqliteStore extends SubscriberStore {
  readonly kind: "sqlite";
  readonly file: string;
  /** The file is where it was opened, its disk has room, and a write goes through; reports changes to the log. */
  healthy(): boolean;
  close(): void;
  // The owner's tools (npm run subscribers).
  count(): number;
  /** Every subscriber, oldest first. */
  list(): SubscriberRow[];
  /** Removes an address in any letter case; whether it was there. */
  remove(email: string): boolean;
  /** A consistent copy of the whole file at `target` (which must not exist), safe while the server writes. */
  backup(target: string): void;
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
/** Below this much free space on DATA_DIR's disk the store counts as unable to write: a sign-up needs a few pages. */
export const MIN_FREE_BYTES = 256 * 1024;

/** The file's identity: a file deleted or replaced under the open connection is no longer where we write. */
const identity = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
};

export function openSqliteStore(dataDir: string): SqliteStore {
  const directory = path.resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, SQLITE_FILE_NAME);
  const db = new DatabaseSync(file);
  const opened = identity(file);
  try {
    // Another process holding a write lock (it should not: one process owns the file) makes us wait, not hang.
    db.exec("pragma busy_timeout = 2000");
    const { journal_mode: mode } = db.prepare("pragma journal_mode = wal").get() as { journal_mode: string };
    if (mode !== "wal") console.warn(`Newsletter store: ${file} could not use WAL (journal mode is ${mode}).`);
    db.exec(SCHEMA);
    migrate(db);
    // A real write, so a read-only file or folder fails here rather than on the first visitor's sign-up.
    db.exec(`pragma user_version = ${SCHEMA_VERSION}`);
  } catch (error) {
    db.close();
    throw error;
  }

  const insert = db.prepare("insert into newsletter_subscribers (email, unsubscribe_token) values (?, ?)");
  const removeByToken = db.prepare("delete from newsletter_subscribers where unsubscribe_token = ? returning email");
  const removeByEmail = db.prepare("delete from newsletter_subscribers where lower(email) = lower(?)");
  const ping = db.prepare("select 1 as ok");
  // A write that changes nothing but still goes through the journal to the disk, like a sign-up's commit.
  const touch = db.prepare(`pragma user_version = ${SCHEMA_VERSION}`);

  /** Why the store cannot take a write now, or null when it can (checked per sign-up and per health probe). */
  function cannotWrite(): string | null {
    if (identity(file) !== opened) return `${file} is gone or was replaced`;
    const { bavail, bsize } = statfsSync(directory);
    if (bavail * bsize < MIN_FREE_BYTES) return `the disk holding ${directory} is full`;
    return null;
  }

  let lastProblem: string | null = null;
  /** Tells the owner once when the store stops being writable, and once when it can write again. */
  function report(problem: string | null) {
    if (problem === lastProblem) return;
    if (problem) {
      console.error(
        `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until it can: ` +
          "free space on the disk, or put the file back (restore a backup) and restart the server.",
      );
    } else {
      console.info(`Newsletter store: ${file} can be written again.`);
    }
    lastProblem = problem;
  }

  return {
    kind: "sqlite",
    file,
    async subscribe(email) {
      // A row written to a deleted file, or half-written to a full disk, would be acknowledged and then lost.
      const problem = cannotWrite();
      if (problem) {
        report(problem);
        return "failed";
      }
      try {
        insert.run(email, randomUUID());
        return "subscribed";
      } catch (error) {
        const outcome = sqliteOutcome(error);
        if (outcome === "failed") {
          console.error(`Newsletter: SQLite insert for ${maskEmail(email)} failed: ${describeCause(error)}`);
        }
        return outcome;
      }
    },
    async unsubscribe(token) {
      if (!isUnsubscribeToken(token)) return "unknown";
      try {
        const removed = removeByToken.get(token) as { email: string } | undefined;
        if (!removed) return "unknown";
        console.info(`Newsletter: ${maskEmail(removed.email)} unsubscribed.`);
        return "removed";
      } catch (error) {
        console.error(`Newsletter: SQLite unsubscribe failed: ${describeCause(error)}`);
        return "failed";
      }
    },
    count() {
      return (db.prepare("select count(*) as n from newsletter_subscribers").get() as { n: number }).n;
    },
    list() {
      const rows = db
        .prepare(
          "select email, created_at as createdAt, unsubscribe_token as unsubscribeToken " +
            "from newsletter_subscribers order by id",
        )
        .all();
      return rows as unknown as SubscriberRow[];
    },
    remove(email) {
      return Number(removeByEmail.run(email).changes) > 0;
    },
    backup(target) {
      const destination = path.resolve(target);
      if (existsSync(destination)) throw new Error(`${destination} already exists: choose a new file name`);
      // VACUUM INTO writes a consistent snapshot, even while the server goes on writing (WAL).
      db.prepare("vacuum into ?").run(destination);
    },
    healthy() {
      let problem: string | null;
      try {
        problem = cannotWrite();
        if (!problem && (ping.get() as { ok?: number } | undefined)?.ok !== 1) problem = "it does not answer";
        if (!problem) touch.run();
      } catch (error) {
        problem = describeCause(error);
      }
      report(problem);
      return problem === null;
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}
