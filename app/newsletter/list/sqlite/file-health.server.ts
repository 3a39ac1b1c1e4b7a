// Whether the store's files can still take a write: the file where it was opened, room on its disk, a commit that
// goes through; and the rescue of a write-ahead log deleted under the running server.
import { existsSync, type FSWatcher, renameSync, rmSync, statSync, watch } from "node:fs";
import path from "node:path";
import { describeCause } from "~/utils/log.server";
import {
  connect,
  disconnect,
  FILE_TROUBLE,
  fileDeleted,
  identity,
  type LiveConnection,
  SQLITE_IOERR,
  sqliteCode,
  StoreFileError,
} from "~/newsletter/list/sqlite/connection.server";
import { freeBytesOn, partialName, syncToDiskNow } from "~/newsletter/list/sqlite/durable-files.server";

/** Below this much free space on DATA_DIR's disk the store counts as unable to write: a sign-up needs a few pages. */
export const MIN_FREE_BYTES = 256 * 1024;

/** How often /healthz may prove the store writable with a real commit; probes in between only look at the files. */
export const WRITE_CHECK_INTERVAL_MS = 5_000;

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

/**
 * Connects to the store's file at start-up. An existing file SQLite cannot use throws a StoreFileError saying what
 * to do; anything else (the folder, most likely) is thrown as it is.
 */
export function connectAtStart(file: string, existed: boolean) {
  try {
    return connect(file);
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
}

/** The log lines for a change in whether the store can write. */
function problemMessage(problem: string | null, broken: string | null, file: string) {
  if (problem === null) return `Newsletter store: ${file} can be written again.`;
  if (problem === broken && problem.startsWith(`${file} was deleted`)) {
    // The deleted file is still open here: the clean close writes it back (see FileHealth.close).
    return (
      `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until the server ` +
      `restarts: stop it cleanly (docker stop, or SIGTERM) and it writes the list it still holds back to ${file}. ` +
      "Do not restore a backup first: that would lose the rows since it was made."
    );
  }
  if (problem === broken) {
    // The rows since the last checkpoint are in the log this connection still has open: a clean close saves them.
    return (
      `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until the server ` +
      `restarts: ${STOP_CLEANLY} what the log held into ${file}. Do not restore a backup first: that would lose ` +
      "those rows."
    );
  }
  return (
    `Newsletter store: cannot write (${problem}). Sign-ups fail and /healthz answers 503 until it can: ` +
    "free space on the disk, or put the file back (restore a backup) and restart the server."
  );
}

/** Watches the live connection's files: whether they can take a write now, told to the log when that changes. */
export class FileHealth {
  /** Set when the store must refuse every write until the server restarts. */
  private broken: string | null = null;
  private lastProblem: string | null = null;
  /** When a commit last went through (a sign-up or a probe's), and whether the last probe's commit failed. */
  private lastWrite = { at: Number.NEGATIVE_INFINITY, ok: true };
  private watcher: FSWatcher | undefined;

  constructor(private readonly live: LiveConnection) {
    // A deleted log is noticed at once, not at the next sign-up: the rows it holds must reach the database file
    // before anything (a crash, a redeploy) ends the process.
    const base = path.basename(live.file);
    try {
      this.watcher = watch(live.directory, { persistent: false }, (_event, name) => {
        if (typeof name === "string" && name.startsWith(base) && !live.closed) this.report(this.cannotWrite());
      });
      this.watcher.on("error", () => this.watcher?.close());
    } catch {
      // No file-system events here: the check before every sign-up and every health probe still holds.
    }
  }

  /**
   * The write-ahead log (or its index) deleted or replaced under the connection: commits since the last checkpoint
   * live only in the open, unlinked file and die with the process. Copy them into the database file now, then start
   * a new connection on the files that are there, so nothing acknowledged depends on a file nobody can find.
   */
  private rescue(which: string) {
    const { live } = this;
    try {
      const result = live.current.db.prepare("pragma wal_checkpoint(TRUNCATE)").get() as { busy: number } | undefined;
      if (result?.busy) throw new Error("a reader held the log");
      disconnect(live.current);
      live.current = connect(live.file);
      console.error(
        `Newsletter store: ${which} was deleted or replaced; what it held is now in ${live.file}, and the store ` +
          "reopened.",
      );
    } catch (error) {
      this.broken = `${which} was deleted or replaced and could not be saved (${describeCause(error)})`;
    }
  }

  /**
   * The database file deleted under the connection (by hand, a clean-up script): every row is still in the file the
   * connection has open, unlinked, and dies with the process. Writes them all to a new file at the same name and
   * reopens there, so nothing acknowledged is lost; if that fails, the clean close tries again (see close).
   */
  private saveDeletedFile() {
    const { live } = this;
    try {
      writeBackUnder(live);
      live.current = connect(live.file);
      console.error(
        `Newsletter store: ${live.file} was deleted under the running server; every row it held is written back ` +
          "to it, and the store reopened.",
      );
    } catch (error) {
      this.broken = `${live.file} was deleted and could not be written back (${describeCause(error)})`;
    }
  }

  /** Why the store cannot take a write now, or null when it can (checked per sign-up and per health probe). */
  cannotWrite(): string | null {
    const { live } = this;
    if (this.broken) return this.broken;
    if (!live.closed && identity(live.file) === null && fileDeleted(live.current)) {
      this.saveDeletedFile();
      if (this.broken) return this.broken;
    }
    const [main, ...log] = live.current.files;
    if (identity(main!.name) !== main!.id) return `${live.file} is gone or was replaced`;
    // A closed connection removed its own log: nothing to rescue.
    const moved = !live.closed && log.find((part) => part.id !== null && identity(part.name) !== part.id);
    if (moved) {
      this.rescue(moved.name);
      if (this.broken) return this.broken;
    }
    if (freeBytesOn(live.directory) < MIN_FREE_BYTES) return `the disk holding ${live.directory} is full`;
    return null;
  }

  /** Tells the owner once when the store stops being writable, and once when it can write again. */
  report(problem: string | null) {
    if (problem === this.lastProblem) return;
    const line = problemMessage(problem, this.broken, this.live.file);
    if (problem === null) console.info(line);
    else console.error(line);
    this.lastProblem = problem;
  }

  /** A commit went through (or, `ok` false, failed) now. */
  wrote(ok: boolean) {
    this.lastWrite = { at: Date.now(), ok };
  }

  /** The next health probe commits again instead of trusting an older success. */
  forgetWrites() {
    this.lastWrite = { at: Number.NEGATIVE_INFINITY, ok: true };
  }

  /** The file is where it was opened, its disk has room, and a write goes through; reports changes to the log. */
  healthy(): boolean {
    let problem: string | null;
    try {
      problem = this.cannotWrite();
      const conn = this.live.current;
      if (!problem && (conn.ping.get() as { ok?: number } | undefined)?.ok !== 1) problem = "it does not answer";
      // A commit at most every few seconds: each one is an fsync, and probes can come from anyone.
      if (!problem && Date.now() - this.lastWrite.at >= WRITE_CHECK_INTERVAL_MS) {
        try {
          conn.touch.run();
          this.wrote(true);
        } catch (error) {
          this.wrote(false);
          throw error;
        }
      }
      if (!problem && !this.lastWrite.ok) problem = "the last write check failed";
    } catch (error) {
      problem = describeCause(error);
    }
    this.report(problem);
    return problem === null;
  }

  /** Stops watching; a database file deleted and not yet written back is written back now, the last chance. */
  close() {
    this.watcher?.close();
    const { live } = this;
    if (identity(live.file) === null && fileDeleted(live.current) && existsSync(live.directory)) {
      try {
        writeBackUnder(live);
        console.info(`Newsletter store: the deleted ${live.file} is written back with every row it held.`);
      } catch (error) {
        console.error(`Newsletter store: could not write the deleted ${live.file} back: ${describeCause(error)}`);
      }
    }
  }
}

/**
 * Copies the whole database the connection holds (its file may be unlinked) to a new file at its name, then closes
 * the connection. VACUUM INTO reads through the connection, the log's rows included, and writes a compact file of its
 * own; it is written as .partial, flushed and renamed, so the name never holds half a list. Refuses when something
 * is at the name again (the owner put a file back): that one is not overwritten.
 */
function writeBackUnder(live: LiveConnection) {
  const { file, directory } = live;
  const partial = partialName(file);
  rmSync(partial, { force: true });
  try {
    live.current.db.prepare("vacuum into ?").run(partial);
    syncToDiskNow(partial);
    if (identity(file) !== null) throw new Error(`a file is at ${file} again; the list is kept in ${partial}`);
    // Closing removes the old log and its index by name: they belong to the deleted file, not to the new one.
    disconnect(live.current);
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    renameSync(partial, file);
    syncToDiskNow(directory);
  } catch (error) {
    if (live.current.db.isOpen) rmSync(partial, { force: true });
    throw error;
  }
}
