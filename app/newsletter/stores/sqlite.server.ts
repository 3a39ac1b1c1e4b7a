// The embedded store: one SQLite file under DATA_DIR. Its parts live in ./sqlite/ by concern (connection, schema,
// file health, the visitors' operations, the owner's); this module puts them together behind one interface.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { SubscriberStore } from "~/newsletter/stores/types.server";
import { countRows, disconnect, type LiveConnection } from "~/newsletter/stores/sqlite/connection.server";
import { connectAtStart, FileHealth } from "~/newsletter/stores/sqlite/file-health.server";
import { subscribe, unsubscribe } from "~/newsletter/stores/sqlite/visitor-ops.server";
import {
  addBack,
  type AddBackReport,
  type BackupRow,
  type ConsentWording,
  copyDatabase,
  listRows,
  type SubscriberRow,
} from "~/newsletter/stores/sqlite/owner-ops.server";

export {
  SQLITE_CONSTRAINT_UNIQUE,
  sqliteOutcome,
  StoreFileError,
  countRows,
} from "~/newsletter/stores/sqlite/connection.server";
export {
  isLogLostUnderOpenFile,
  lostLogMessage,
  MIN_FREE_BYTES,
  WRITE_CHECK_INTERVAL_MS,
} from "~/newsletter/stores/sqlite/file-health.server";
export type {
  AddBackReport,
  BackupRow,
  ConsentWording,
  SubscriberRow,
} from "~/newsletter/stores/sqlite/owner-ops.server";

export const SQLITE_FILE_NAME = "newsletter.sqlite";

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
   * link since (the list remembers their token). Rows whose address is on the list are left as they are. Each row
   * keeps its confirmation state and consent record; the wordings the list lacks are added.
   */
  addBack(rows: readonly BackupRow[], wordings?: readonly ConsentWording[]): AddBackReport;
  /**
   * A consistent copy of the whole file at `target` (which must not exist), safe while the server writes; answers how
   * many subscribers the copy holds. The copy runs off the event loop, `stepPages` pages at a time.
   */
  backup(target: string, options?: StoreBackupOptions): Promise<number>;
  /** The live database, for reads by the confirmation module (app/newsletter/confirm-sqlite.server.ts). */
  database(): DatabaseSync;
  /** Runs a write on the live database after the checks a sign-up makes; null (reported) when it cannot write. */
  whenWritable<T>(work: (db: DatabaseSync) => T): T | null;
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

/**
 * Opens (creating when needed) the embedded store in `dataDir`. Throws when the folder or file cannot be created or
 * written, so a bad DATA_DIR stops start-up instead of failing every sign-up later.
 */
export function openSqliteStore(dataDir: string): SqliteStore {
  const directory = path.resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, SQLITE_FILE_NAME);
  const current = connectAtStart(file, existsSync(file));
  const live: LiveConnection = { current, file, directory, closed: false };
  const health = new FileHealth(live);
  return {
    kind: "sqlite",
    file,
    subscribe: async (email) => subscribe(live, health, email),
    unsubscribe: async (token) => unsubscribe(live, token),
    count: () => countRows(live.current.db),
    list: () => listRows(live.current.db),
    remove: (email) => Number(live.current.removeByEmail.run(email).changes) > 0,
    addBack: (rows, wordings) => addBack(live.current.db, rows, wordings),
    backup: (target, { stepPages = BACKUP_STEP_PAGES } = {}) => copyDatabase(live.current.db, target, stepPages),
    healthy: () => health.healthy(),
    database: () => live.current.db,
    whenWritable(work) {
      const problem = health.cannotWrite();
      if (problem) {
        health.report(problem);
        return null;
      }
      const result = work(live.current.db);
      health.wrote(true);
      return result;
    },
    close() {
      live.closed = true;
      health.close();
      disconnect(live.current);
    },
  };
}
