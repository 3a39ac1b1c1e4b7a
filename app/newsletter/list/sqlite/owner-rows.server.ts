// What the owner's tools (npm run subscribers) do to the embedded list: read it, show and count readers, put a
// backup's rows back, copy the whole file.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { onlineBackup } from "~/newsletter/list/sqlite/online-backup.server";
import { transaction } from "~/utils/sqlite-transaction.server";
import { transition } from "~/newsletter/list/ledger";
import { countRows } from "~/newsletter/list/sqlite/connection.server";
import { writeAtomically } from "~/newsletter/list/sqlite/durable-files.server";
import {
  insertTombstones,
  insertWordings,
  keepLedgerKey,
  openNewStoreFile,
  rowInserter,
} from "~/newsletter/list/sqlite/backup-rows.server";
import { fillMailboxes, tombstoneOf } from "~/newsletter/list/sqlite/tombstones.server";
import { type BackupLedger, carryLedger } from "~/newsletter/list/sqlite/carry-ledger.server";
import type {
  AddBackReport,
  BackupRow,
  ConsentRecord,
  ConsentWording,
  SubscriberRow,
  Suppression,
  SuppressReason,
} from "~/newsletter/list/subscriber-list.server";

const SUPPRESSION_COLUMNS =
  "suppressed_reason as suppressedReason, suppressed_at as suppressedAt, suppressed_detail as suppressedDetail";

interface SuppressionColumns {
  suppressedReason: SuppressReason | null;
  suppressedAt: string | null;
  suppressedDetail: string | null;
}

/** Folds the three suppression columns into one `suppression` (null when the reader is not suppressed). */
function withSuppression<T extends object>(row: T & SuppressionColumns): T & { suppression: Suppression | null } {
  const { suppressedReason, suppressedAt, suppressedDetail, ...rest } = row;
  const suppression = suppressedReason
    ? { reason: suppressedReason, at: suppressedAt ?? "", detail: suppressedDetail ?? "" }
    : null;
  return { ...(rest as unknown as T), suppression };
}

/** Everything kept about one address, or null. */
export function consentRecord(db: DatabaseSync, email: string): ConsentRecord | null {
  const row = db
    .prepare(
      "select s.email, s.state, s.created_at as signedUpAt, s.confirmed_at as confirmedAt, s.consent_page as page, " +
        "s.consent_version as wordingVersion, w.wording, s.confirm_requested_at as confirmationRequestedAt, " +
        "s.unsubscribe_token as unsubscribeToken, " +
        SUPPRESSION_COLUMNS +
        " from newsletter_subscribers s " +
        "left join newsletter_consent_wordings w on w.version = s.consent_version where lower(s.email) = lower(?)",
    )
    .get(email) as (ConsentRecord & SuppressionColumns) | undefined;
  return row ? withSuppression(row) : null;
}

/** Counts confirmed and pending readers apart. */
export function countByState(db: DatabaseSync): { confirmed: number; pending: number } {
  const rows = db.prepare("select state, count(*) as n from newsletter_subscribers group by state").all() as {
    state: string;
    n: number;
  }[];
  const count = (state: string) => rows.find((row) => row.state === state)?.n ?? 0;
  return { confirmed: count("confirmed"), pending: count("pending") };
}

/** Every subscriber, oldest first. */
export function listRows(db: DatabaseSync): SubscriberRow[] {
  const rows = db
    .prepare(
      "select email, created_at as createdAt, unsubscribe_token as unsubscribeToken, state, " +
        "confirmed_at as confirmedAt, " +
        SUPPRESSION_COLUMNS +
        " from newsletter_subscribers order by id",
    )
    .all() as unknown as (SubscriberRow & SuppressionColumns)[];
  return rows.map(withSuppression);
}

/**
 * Puts rows of a backup back in one transaction, each with its state and consent record: those not on the list,
 * except readers who unsubscribed by their link since (the list remembers their token). Rows whose address is on the
 * list are left as they are. The wordings the list lacks are added.
 */
const restoreDoor = (row: BackupRow) => (row.state === "pending" ? "restore-pending" : "restore");

export function addBack(
  db: DatabaseSync,
  rows: readonly BackupRow[],
  wordings: readonly ConsentWording[] = [],
  ledger: BackupLedger = { key: null, tombstones: [] },
): AddBackReport {
  const present = db.prepare("select 1 from newsletter_subscribers where lower(email) = lower(?)");
  const left = db.prepare("select 1 from newsletter_unsubscribed where unsubscribe_token = ?");
  const tokenTaken = db.prepare("select 1 from newsletter_subscribers where unsubscribe_token = ?");
  const hashTaken = db.prepare("select 1 from newsletter_subscribers where confirm_token_hash = ?");
  const insert = rowInserter(db);
  return transaction(db, () => {
    insertWordings(db, wordings);
    carryLedger(db, ledger);
    const report: AddBackReport = { added: [], alreadyThere: 0, unsubscribedSince: 0 };
    for (const row of rows) {
      if (present.get(row.email)) report.alreadyThere += 1;
      else if (row.unsubscribeToken && left.get(row.unsubscribeToken)) report.unsubscribedSince += 1;
      // The live ledger is newer than any backup: a mailbox that left since stays gone (a suppressed row, which is
      // never mailed, comes back as the record it was).
      else if (
        !row.suppressedReason &&
        transition(tombstoneOf(db, row.email) ? "left" : "absent", restoreDoor(row)).refused
      ) {
        report.unsubscribedSince += 1;
      } else {
        // The reader's old link keeps working, unless the token is somehow someone else's now.
        const token =
          row.unsubscribeToken && !tokenTaken.get(row.unsubscribeToken) ? row.unsubscribeToken : randomUUID();
        // Likewise a pending reader's mailed link; without it they get a new one by signing up again.
        const hash = row.confirmTokenHash && !hashTaken.get(row.confirmTokenHash) ? row.confirmTokenHash : null;
        insert(row, token, hash);
        report.added.push(row.email);
      }
    }
    fillMailboxes(db);
    return report;
  });
}

/**
 * A consistent copy of the whole file at `target` (which must not exist), safe while the server writes; answers how
 * many subscribers the copy holds. SQLite's online backup runs through `db`, each step of `stepPages` pages on
 * libuv's thread pool.
 */
export function copyDatabase(db: DatabaseSync, target: string, stepPages: number): Promise<number> {
  // The backup folder (or the one the owner named) may not exist yet: a first backup makes it.
  mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  return writeAtomically(
    path.resolve(target),
    async (partial) => {
      await onlineBackup(db, partial, stepPages);
      return settleCopy(partial);
    },
    { scrapSuffixes: ["-journal", "-wal", "-shm"] },
  );
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

/** What a backup holds besides its rows, written back with them. */
export interface BackupExtras {
  unsubscribed: readonly string[];
  wordings?: readonly ConsentWording[];
  /** The tombstones and the key they were made with (null: a file from before the ledger, which gets a new key). */
  ledger?: BackupLedger;
}

/**
 * Writes a new store file at `target` (replacing whatever is there, in one rename) holding exactly `rows`, in their
 * order, with their states, consent records and suppressions, the wordings agreed to, the tokens of readers who left
 * and the tombstones with their key: the schema is the store's own, whatever the rows came from.
 */
export function writeFreshStore(target: string, rows: readonly BackupRow[], extras: BackupExtras) {
  const { unsubscribed, wordings = [], ledger } = extras;
  return writeAtomically(
    target,
    async (partial) => {
      const db = openNewStoreFile(partial);
      try {
        const insert = rowInserter(db);
        const left = db.prepare("insert or ignore into newsletter_unsubscribed (unsubscribe_token) values (?)");
        transaction(db, () => {
          if (ledger?.key) {
            keepLedgerKey(db, ledger.key);
            insertTombstones(db, ledger.tombstones, ledger.key);
          }
          insertWordings(db, wordings);
          for (const row of rows) insert(row, row.unsubscribeToken ?? randomUUID());
          for (const token of unsubscribed) left.run(token);
        });
        return countRows(db);
      } finally {
        db.close();
      }
    },
    { replace: true, scrapSuffixes: ["-journal", "-wal", "-shm"] },
  );
}
