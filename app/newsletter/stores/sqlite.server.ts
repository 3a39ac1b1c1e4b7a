import { randomUUID } from "node:crypto";
import { existsSync, type FSWatcher, mkdirSync, rmSync, statfsSync, statSync, watch } from "node:fs";
import { open, rename } from "node:fs/promises";
import path from "node:path";
// A static import of the built-in keeps the module external in the server build (checked by the HTTP tests, which
// run build/index.js); node:sqlite needs no dependency and no native build.
import { backup as onlineBackup, DatabaseSync } from "node:sqlite";
import { maskEmail } from "~/newsletter/mask-email.server";
import {
  describeCause,
  isUnsubscribeToken,
  type SubscribeOutcome,
  type SubscriberStore,
} from "~/newsletter/stores/types.server";

export const SQLITE_FILE_NAME = "newsletter.sqlite";
/** SQLITE_CONSTRAINT_UNIQUE: the extended result code of a unique index violation, our "duplicate". */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;
/**
 * A write that changes nothing anyone reads (the header's user_version) yet commits through the journal to the disk
 * like a sign-up: at start-up it proves the file and its folder writable, in a health probe that they still are.
 */
const WRITE_CHECK = "pragma user_version = 0";

const SCHEMA = `
  create table if not exists newsletter_subscribers (
    id integer primary key,
    email text not null,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    unsubscribe_token text
  );
  create unique index if not exists newsletter_subscribers_email_lower_key
    on newsletter_subscribers (lower(email));
  -- Who left by their own link, by token only (never the address): a restore must not bring them back unasked.
  create table if not exists newsletter_unsubscribed (
    unsubscribe_token text primary key,
    at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  ) without rowid;
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

/** What a restore into the live list did. */
export interface AddBackReport {
  /** The addresses put back, in the backup's order. */
  added: string[];
  alreadyThere: number;
  /** Left out: these readers unsubscribed by their link after the backup was made. */
  unsubscribedSince: number;
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
  /**
   * Puts rows of a backup back in one transaction: those not on the list, except readers who unsubscribed by their
   * link since (the list remembers their token). Rows whose address is on the list are left as they are.
   */
  addBack(rows: { email: string; createdAt: string; unsubscribeToken: string | null }[]): AddBackReport;
  /**
   * A consistent copy of the whole file at `target` (which must not exist), safe while the server writes; answers how
   * many subscribers the copy holds. The copy runs off the event loop, `stepPages` pages at a time.
   */
  backup(target: string, options?: StoreBackupOptions): Promise<number>;
}

export interface StoreBackupOptions {
  /**
   * Pages copied per step (a page is 4 KiB). Between steps the event loop runs, and a sign-up on this connection
   * waits for one step at most; its pages go into the copy as it commits, so the copy holds every row up to the end.
   * A commit by another connection (another process) makes the copy start again, which a busy list could do forever:
   * a process that serves nobody (the owner's tools) copies the whole file in one step, one consistent snapshot.
   */
  stepPages?: number;
}

/** The server's step: a few milliseconds of copying on a worker thread, so a sign-up hardly waits. */
export const BACKUP_STEP_PAGES = 100;
/** One step for the whole file, whatever its size (SQLite takes a page count that fits in an int). */
export const WHOLE_FILE = 2 ** 31 - 1;

/** Maps a failed insert to an outcome: only a unique violation is a duplicate, anything else is a failure. */
export function sqliteOutcome(error: unknown): Exclude<SubscribeOutcome, "subscribed"> {
  const errcode = typeof error === "object" && error !== null ? (error as { errcode?: unknown }).errcode : undefined;
  return errcode === SQLITE_CONSTRAINT_UNIQUE ? "duplicate" : "failed";
}

/** Below this much free space on DATA_DIR's disk the store counts as unable to write: a sign-up needs a few pages. */
export const MIN_FREE_BYTES = 256 * 1024;

/** A file's identity: a file deleted or replaced under the open connection is no longer where we write. */
const identity = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
};

/** How often /healthz may prove the store writable with a real commit; probes in between only look at the files. */
export const WRITE_CHECK_INTERVAL_MS = 5_000;

const SQLITE_IOERR = 10;
/** SQLite result codes (the primary code, the low byte of an extended one) that mean the file itself is the trouble. */
const FILE_TROUBLE = new Set([SQLITE_IOERR, 11 /* CORRUPT */, 26 /* NOTADB */]);

/** The store's file exists but SQLite cannot use it (damaged, not a database, I/O errors): not a settings problem. */
export class StoreFileError extends Error {
  override name = "StoreFileError";
}

/** The SQLite result code an error carries, its own or its cause's (a wrapped one), if any. */
function sqliteCode(error: unknown): number | undefined {
  const { errcode, cause } = (error ?? {}) as { errcode?: unknown; cause?: unknown };
  if (typeof errcode === "number") return errcode;
  return cause === undefined ? undefined : sqliteCode(cause);
}

/**
 * Whether `error`, met reading `file`, comes from its write-ahead log having gone (deleted or replaced) under a
 * process that still has the file open: the log's index (-shm), which that process keeps, is there and says the log
 * holds changes, while the log is missing or empty, so reading what the index points at fails with an I/O error.
 * (Once no process holds the file, SQLite rebuilds the index from whatever log there is and opens without error.)
 */
export function isLogLostUnderOpenFile(file: string, error: unknown): boolean {
  const code = sqliteCode(error);
  if (code === undefined || (code & 0xff) !== SQLITE_IOERR) return false;
  const index = statSync(`${file}-shm`, { throwIfNoEntry: false });
  const log = statSync(`${file}-wal`, { throwIfNoEntry: false });
  return Boolean(index?.size) && !log?.size;
}

/** How what a lost log held reaches the file: the server's own clean close writes it there (a checkpoint). */
const STOP_CLEANLY =
  "stop it cleanly (docker stop, or SIGTERM), with no other program holding the file open, and it writes";

/**
 * What the owner is told when the log went from under a running server: not DATA_DIR, not a damaged file. The server
 * still holds those changes in the log it has open, and a clean stop writes them into the file (a restore, or
 * deleting the -shm, would lose them).
 */
export const lostLogMessage = (file: string) =>
  `Newsletter store: ${file}-wal, the log of the latest changes to ${file}, was deleted or replaced while the ` +
  `server had the list open, so this cannot read the list now. The server still holds those changes: ${STOP_CLEANLY} ` +
  "them into the file; then start it and run this again. Do not restore a backup or delete the -shm file meanwhile: " +
  "either would lose them.";

function connect(file: string) {
  const db = new DatabaseSync(file);
  try {
    // Another process holding a write lock (it should not: one process owns the file) makes us wait, not hang.
    db.exec("pragma busy_timeout = 2000");
    const { journal_mode: mode } = db.prepare("pragma journal_mode = wal").get() as { journal_mode: string };
    if (mode !== "wal") console.warn(`Newsletter store: ${file} could not use WAL (journal mode is ${mode}).`);
    db.exec(SCHEMA);
    migrate(db);
    // A real write, so a read-only file or folder fails here rather than on the first visitor's sign-up.
    db.exec(WRITE_CHECK);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    db,
    insert: db.prepare("insert into newsletter_subscribers (email, unsubscribe_token) values (?, ?)"),
    removeByToken: db.prepare("delete from newsletter_subscribers where unsubscribe_token = ? returning email"),
    noteUnsubscribe: db.prepare("insert or ignore into newsletter_unsubscribed (unsubscribe_token) values (?)"),
    removeByEmail: db.prepare("delete from newsletter_subscribers where lower(email) = lower(?)"),
    ping: db.prepare("select 1 as ok"),
    touch: db.prepare(WRITE_CHECK),
    // The three files the connection has open: the database, its write-ahead log and the log's index.
    files: [file, `${file}-wal`, `${file}-shm`].map((name) => ({ name, id: identity(name) })),
  };
}

/**
 * Opens (creating when needed) the embedded store in `dataDir`. Throws when the folder or file cannot be created or
 * written, so a bad DATA_DIR stops start-up instead of failing every sign-up later.
 */
export function openSqliteStore(dataDir: string): SqliteStore {
  const directory = path.resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, SQLITE_FILE_NAME);
  const existed = existsSync(file);
  let conn: ReturnType<typeof connect>;
  try {
    conn = connect(file);
  } catch (error) {
    const code = sqliteCode(error);
    if (existed && isLogLostUnderOpenFile(file, error)) throw new StoreFileError(lostLogMessage(file));
    if (existed && code !== undefined && FILE_TROUBLE.has(code & 0xff)) {
      throw new StoreFileError(
        `Newsletter store: SQLite cannot use ${file} (${describeCause(error)}). Check the disk and the file; if ` +
          "it is damaged, stop the server and restore a backup (npm run subscribers -- restore <backup>).",
      );
    }
    throw error;
  }
  /** Set when the store must refuse every write until the server restarts. */
  let broken: string | null = null;

  /**
   * The write-ahead log (or its index) deleted or replaced under the connection: commits since the last checkpoint
   * live only in the open, unlinked file and die with the process. Copy them into the database file now, then start
   * a new connection on the files that are there, so nothing acknowledged depends on a file nobody can find.
   */
  function rescue(which: string) {
    try {
      const result = conn.db.prepare("pragma wal_checkpoint(TRUNCATE)").get() as { busy: number } | undefined;
      if (result?.busy) throw new Error("a reader held the log");
      conn.db.close();
      conn = connect(file);
      console.error(
        `Newsletter store: ${which} was deleted or replaced; what it held is now in ${file}, and the store reopened.`,
      );
    } catch (error) {
      broken = `${which} was deleted or replaced and could not be saved (${describeCause(error)})`;
    }
  }

  /** Why the store cannot take a write now, or null when it can (checked per sign-up and per health probe). */
  function cannotWrite(): string | null {
    if (broken) return broken;
    const [main, ...log] = conn.files;
    if (identity(main!.name) !== main!.id) return `${file} is gone or was replaced`;
    // A closed connection removed its own log: nothing to rescue.
    const moved = !closed && log.find((part) => part.id !== null && identity(part.name) !== part.id);
    if (moved) {
      rescue(moved.name);
      if (broken) return broken;
    }
    const { bavail, bsize } = statfsSync(directory);
    if (bavail * bsize < MIN_FREE_BYTES) return `the disk holding ${directory} is full`;
    return null;
  }

  let lastProblem: string | null = null;
  /** Tells the owner once when the store stops being writable, and once when it can write again. */
  function report(problem: string | null) {
    if (problem === lastProblem) return;
    if (problem !== null && problem === broken) {
      // The rows since the last checkpoint are in the log this connection still has open: a clean close saves them.
      console.error(
        `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until the server ` +
          `restarts: ${STOP_CLEANLY} what the log held into ${file}. Do not restore a backup first: that would lose ` +
          "those rows.",
      );
    } else if (problem) {
      console.error(
        `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until it can: ` +
          "free space on the disk, or put the file back (restore a backup) and restart the server.",
      );
    } else {
      console.info(`Newsletter store: ${file} can be written again.`);
    }
    lastProblem = problem;
  }

  // A deleted log is noticed at once, not at the next sign-up: the rows it holds must reach the database file before
  // anything (a crash, a redeploy) ends the process.
  let closed = false;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(directory, { persistent: false }, (_event, name) => {
      if (typeof name === "string" && name.startsWith(SQLITE_FILE_NAME) && !closed) report(cannotWrite());
    });
    watcher.on("error", () => watcher?.close());
  } catch {
    // No file-system events here: the check before every sign-up and every health probe still holds.
  }

  /** When a commit last went through (a sign-up or a probe's), and whether the last probe's commit failed. */
  let lastWrite = { at: Number.NEGATIVE_INFINITY, ok: true };
  const wrote = (ok: boolean) => {
    lastWrite = { at: Date.now(), ok };
  };

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
        conn.insert.run(email, randomUUID());
        wrote(true);
        return "subscribed";
      } catch (error) {
        const outcome = sqliteOutcome(error);
        if (outcome === "failed") {
          // The next health probe commits again instead of trusting an older success.
          lastWrite = { at: Number.NEGATIVE_INFINITY, ok: true };
          console.error(`Newsletter: SQLite insert for ${maskEmail(email)} failed: ${describeCause(error)}`);
        }
        return outcome;
      }
    },
    async unsubscribe(token) {
      if (!isUnsubscribeToken(token)) return "unknown";
      try {
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
    },
    count() {
      return countRows(conn.db);
    },
    list() {
      const rows = conn.db
        .prepare(
          "select email, created_at as createdAt, unsubscribe_token as unsubscribeToken " +
            "from newsletter_subscribers order by id",
        )
        .all();
      return rows as unknown as SubscriberRow[];
    },
    remove(email) {
      return Number(conn.removeByEmail.run(email).changes) > 0;
    },
    addBack(rows) {
      const present = conn.db.prepare("select 1 from newsletter_subscribers where lower(email) = lower(?)");
      const left = conn.db.prepare("select 1 from newsletter_unsubscribed where unsubscribe_token = ?");
      const tokenTaken = conn.db.prepare("select 1 from newsletter_subscribers where unsubscribe_token = ?");
      const insert = conn.db.prepare(
        "insert into newsletter_subscribers (email, created_at, unsubscribe_token) values (?, ?, ?)",
      );
      return transaction(conn.db, () => {
        const report: AddBackReport = { added: [], alreadyThere: 0, unsubscribedSince: 0 };
        for (const row of rows) {
          if (present.get(row.email)) report.alreadyThere += 1;
          else if (row.unsubscribeToken && left.get(row.unsubscribeToken)) report.unsubscribedSince += 1;
          else {
            // The reader's old link keeps working, unless the token is somehow someone else's now.
            const token =
              row.unsubscribeToken && !tokenTaken.get(row.unsubscribeToken) ? row.unsubscribeToken : randomUUID();
            insert.run(row.email, row.createdAt, token);
            report.added.push(row.email);
          }
        }
        return report;
      });
    },
    async backup(target, { stepPages = BACKUP_STEP_PAGES } = {}) {
      const destination = path.resolve(target);
      if (existsSync(destination)) throw new Error(`${destination} already exists: choose a new file name`);
      // The copy is built under a temporary name in the same folder: `destination` is whole or absent.
      const partial = path.join(path.dirname(destination), `.${path.basename(destination)}.partial`);
      const scraps = ["", "-journal", "-wal", "-shm"].map((suffix) => `${partial}${suffix}`);
      const clear = () => scraps.forEach((scrap) => rmSync(scrap, { force: true }));
      clear();
      try {
        // SQLite's online backup, through the server's own connection: each step runs on libuv's thread pool.
        await onlineBackup(conn.db, partial, { rate: stepPages });
        const subscribers = settleCopy(partial);
        await syncToDisk(partial);
        if (existsSync(destination)) throw new Error(`${destination} already exists: choose a new file name`);
        await rename(partial, destination);
        // A rename is only as durable as the folder that records it.
        await syncToDisk(path.dirname(destination));
        return subscribers;
      } finally {
        clear();
      }
    },
    healthy() {
      let problem: string | null;
      try {
        problem = cannotWrite();
        if (!problem && (conn.ping.get() as { ok?: number } | undefined)?.ok !== 1) problem = "it does not answer";
        // A commit at most every few seconds: each one is an fsync, and probes can come from anyone.
        if (!problem && Date.now() - lastWrite.at >= WRITE_CHECK_INTERVAL_MS) {
          try {
            conn.touch.run();
            wrote(true);
          } catch (error) {
            wrote(false);
            throw error;
          }
        }
        if (!problem && !lastWrite.ok) problem = "the last write check failed";
      } catch (error) {
        problem = describeCause(error);
      }
      report(problem);
      return problem === null;
    },
    close() {
      closed = true;
      watcher?.close();
      if (conn.db.isOpen) conn.db.close();
    },
  };
}

/** Runs `work` in one write transaction: all of it is stored, or none. */
function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("begin immediate");
  try {
    const result = work();
    db.exec("commit");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("rollback");
    throw error;
  }
}

/**
 * Makes a fresh copy a file of its own and answers how many subscribers it holds. The online backup copies the live
 * file's header, which says WAL: opened like that, a backup would grow -wal and -shm files beside it wherever it is
 * read, and could not be read at all from a read-only folder. A rollback journal, as VACUUM INTO wrote, avoids both.
 */
function settleCopy(file: string): number {
  const copy = new DatabaseSync(file);
  try {
    // No fsync of its own here: the caller fsyncs the finished copy once, off the loop.
    copy.exec("pragma synchronous = off; pragma journal_mode = delete");
  } finally {
    copy.close();
  }
  // What the copy holds, counted in the copy: the live list may have grown since.
  const readOnly = new DatabaseSync(file, { readOnly: true });
  try {
    return countRows(readOnly);
  } finally {
    readOnly.close();
  }
}

/** Flushes a file (or a folder's entries) to the disk without holding up the event loop. */
async function syncToDisk(target: string) {
  const handle = await open(target, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const countRows = (db: DatabaseSync) =>
  (db.prepare("select count(*) as n from newsletter_subscribers").get() as { n: number }).n;
