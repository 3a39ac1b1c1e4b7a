// The list's SQLite adapter: one file under DATA_DIR. Its parts live beside this module by concern (connection,
// schema, file health, the visitors' operations, double opt-in, the owner's rows, the readers of a send); this module
// puts them together behind the list's interface (../subscriber-list.server.ts).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import {
  type CopyOptions,
  hashToken,
  type SubscriberList,
  type OwnerOperations,
} from "~/newsletter/list/subscriber-list.server";
import { countRows, disconnect, type LiveConnection } from "~/newsletter/list/sqlite/connection.server";
import { connectAtStart, FileHealth } from "~/newsletter/list/sqlite/file-health.server";
import { signUp, StoreUnwritable, unsubscribe } from "~/newsletter/list/sqlite/visitors.server";
import { confirmByHash, expirePending, issueToken } from "~/newsletter/list/sqlite/double-opt-in.server";
import { addImportedBatch } from "~/newsletter/list/sqlite/imported.server";
import { statement } from "~/utils/sqlite-statements.server";
import {
  delivered,
  softBounce,
  suppress,
  suppressedAddresses,
  unsuppress,
} from "~/newsletter/list/sqlite/suppression.server";
import { confirmedReaders, isConfirmedReader } from "~/newsletter/list/sqlite/readers.server";
import { allTombstones, tombstoneOf } from "~/newsletter/list/sqlite/tombstones.server";
import {
  addBack,
  consentRecord,
  copyDatabase,
  countByState,
  listRows,
} from "~/newsletter/list/sqlite/owner-rows.server";

export { SQLITE_CONSTRAINT_UNIQUE, sqliteOutcome, StoreFileError } from "~/newsletter/list/sqlite/connection.server";
export {
  isLogLostUnderOpenFile,
  lostLogMessage,
  MIN_FREE_BYTES,
  WRITE_CHECK_INTERVAL_MS,
} from "~/newsletter/list/sqlite/file-health.server";

export const SQLITE_FILE_NAME = "newsletter.sqlite";

export interface SqliteList extends SubscriberList {
  readonly kind: "sqlite";
  readonly file: string;
  readonly owner: OwnerOperations;
}

/** The server's step: a few milliseconds of copying on a worker thread, so a sign-up hardly waits. */
export const BACKUP_STEP_PAGES = 100;
/** One step for the whole file, whatever its size (SQLite takes a page count that fits in an int). */
export const WHOLE_FILE = 2 ** 31 - 1;

/**
 * Opens (creating when needed) the list's file in `dataDir`. Throws when the folder or file cannot be created or
 * written, so a bad DATA_DIR stops start-up instead of failing every sign-up later.
 */
export function openSqliteList(dataDir: string): SqliteList {
  const directory = path.resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, SQLITE_FILE_NAME);
  const current = connectAtStart(file, existsSync(file));
  const live: LiveConnection = { current, file, directory, closed: false };
  const health = new FileHealth(live);
  const db = () => live.current.db;
  /** A write after the checks a sign-up makes (the file where it was, room on the disk); throws when it cannot. */
  const write = <T>(work: (db: DatabaseSync) => T): T => {
    const problem = health.cannotWrite();
    if (problem) {
      health.report(problem);
      throw new StoreUnwritable();
    }
    const result = work(db());
    health.wrote(true);
    return result;
  };
  return {
    kind: "sqlite",
    file,
    signUp: async (email, request) => signUp(live, health, email, request),
    unsubscribe: async (token) => unsubscribe(live, token),
    issueConfirmToken: async (email, tokenHash, now) => write((db) => issueToken(db, email, tokenHash, now)),
    confirm: async (token, now, onConfirmed) => write((db) => confirmByHash(db, hashToken(token), now, onConfirmed)),
    expirePending: async (now) => void write((db) => expirePending(db, now)),
    readers: async () => confirmedReaders(db()),
    isReader: async (token) => isConfirmedReader(db(), token),
    suppress: async (email, reason, detail, at) => write((db) => suppress(db, email, reason, detail, at)),
    softBounce: async (email, detail, at) => write((db) => softBounce(db, email, detail, at)),
    delivered: async (email) => void write((db) => delivered(db, email)),
    unsuppress: async (email) => write((db) => unsuppress(db, email)),
    suppressedAddresses: async () => suppressedAddresses(db()),
    healthy: () => health.healthy(),
    owner: {
      count: () => countRows(db()),
      countByState: () => countByState(db()),
      has: (email) =>
        statement(db(), "select 1 from newsletter_subscribers where lower(email) = lower(?)").get(email) !== undefined,
      addImportedBatch: (rows) => write((db) => addImportedBatch(db, rows)),
      addImported: (row) => {
        const [answer] = write((db) => addImportedBatch(db, [row]));
        if (answer instanceof Error) throw answer;
        return answer === true;
      },
      countSuppressed: () =>
        Number(
          (
            db()
              .prepare("select count(*) as n from newsletter_subscribers where suppressed_reason is not null")
              .get() as {
              n: number;
            }
          ).n,
        ),
      tombstones: () => allTombstones(db()).map(({ reason, at }) => ({ reason, at })),
      leftOf: (email) => {
        const found = tombstoneOf(db(), email);
        return found ? { reason: found.reason, at: found.at } : null;
      },
      rows: () => listRows(db()),
      show: (email) => consentRecord(db(), email),
      remove: (email) => Number(live.current.removeByEmail.run(email).changes) > 0,
      addBack: (rows, wordings, ledger) => addBack(db(), rows, wordings, ledger),
      backup: (target, { stepPages = BACKUP_STEP_PAGES }: CopyOptions = {}) => copyDatabase(db(), target, stepPages),
    },
    close() {
      live.closed = true;
      health.close();
      disconnect(live.current);
    },
  };
}
