// A backup file written page by page from a list that is not a SQLite file (Supabase): the embedded store's own schema
// and columns, so `backups` checks it and `restore` takes it as it takes the embedded list's. Each page is written as
// it comes: the list is never held whole in memory.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import {
  insertTombstones,
  insertWordings,
  keepLedgerKey,
  openNewStoreFile,
  rowInserter,
} from "~/newsletter/list/sqlite/backup-rows.server";
import { countRows } from "~/newsletter/list/sqlite/connection.server";
import { writeAtomically } from "~/newsletter/list/sqlite/durable-files.server";
import type { BackupRow, BackupTombstone, ConsentWording } from "~/newsletter/list/subscriber-list.server";

/** One page of what the list holds, with the ledger key its tombstones were made with (null: the list has none). */
export interface BackupPage {
  key: string | null;
  rows?: readonly BackupRow[];
  tombstones?: readonly BackupTombstone[];
  wordings?: readonly ConsentWording[];
}

/**
 * Writes a new backup file at `target` (which must not exist) from `pages`; answers how many readers it holds. The
 * pages must all carry one key: a key that changed while the list was read would name the tombstones wrongly.
 */
export function writePagedBackup(target: string, pages: AsyncIterable<BackupPage>): Promise<number> {
  const file = path.resolve(target);
  mkdirSync(path.dirname(file), { recursive: true });
  return writeAtomically(
    file,
    async (partial) => {
      const db = openNewStoreFile(partial);
      try {
        // The file is this process's alone until its rename, so one transaction may stay open while the pages arrive.
        const insert = rowInserter(db);
        let key: string | null | undefined;
        db.exec("begin");
        for await (const page of pages) {
          if (key === undefined && page.key !== null) {
            keepLedgerKey(db, page.key);
          } else if (key !== undefined && page.key !== key) {
            throw new Error("the list's ledger key changed while it was read: make the backup again");
          }
          key = page.key;
          insertWordings(db, page.wordings ?? []);
          insertTombstones(db, page.tombstones ?? [], page.key ?? "");
          for (const row of page.rows ?? []) insert(row, row.unsubscribeToken ?? randomUUID());
        }
        db.exec("commit");
        return countRows(db);
      } finally {
        db.close();
      }
    },
    { scrapSuffixes: ["-journal", "-wal", "-shm"] },
  );
}
