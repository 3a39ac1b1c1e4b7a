// Reading the embedded store's backups: checking that a file is one, and the owner's listing of the backup folder.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { newestFirst } from "~/newsletter/backups/backup-plan.server";
import { BACKUP_READ_LIMIT_MS, readBackupContents } from "~/newsletter/list/sqlite/backup-file.server";
import type { BackupRow } from "~/newsletter/list/subscriber-list.server";
import { describeCause } from "~/utils/log.server";
import { checkedBackup } from "~/newsletter/backups/restore.server";

/** The names in a folder; none when it does not exist. */
export const folderNames = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The folder's files with their size and when each was last written (one deleted meanwhile is left out). */
export const folderEntries = (dir: string) =>
  folderNames(dir).flatMap((name) => {
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    return stat ? [{ name, bytes: stat.size, modified: stat.mtime }] : [];
  });

/**
 * Reads a backup after checking that it is one: a SQLite file that passes its integrity check and holds this store's
 * table, and no view or trigger; read in a child process killed after `limitMs`. Throws an error that says what is wrong otherwise; never
 * writes to the file. The rows are as stored: a restore checks them (backups-rows.server.ts) before using them.
 */
export function readBackup(file: string, limitMs = BACKUP_READ_LIMIT_MS): BackupRow[] {
  return readBackupContents(file, limitMs).rows as unknown as BackupRow[];
}

export interface BackupListing {
  file: string;
  bytes: number;
  modified: Date;
  /** How many subscribers it holds, or why it is not a usable backup. */
  subscribers: number | { problem: string };
}

/** Every SQLite file in the backup folder, newest first (by the time in its name, else its own), each checked. */
export function listBackups(dir: string, limitMs = BACKUP_READ_LIMIT_MS): BackupListing[] {
  return newestFirst(folderEntries(dir).filter(({ name }) => name.endsWith(".sqlite"))).map(
    ({ name, bytes, modified }) => {
      const file = path.join(dir, name);
      let subscribers: BackupListing["subscribers"];
      try {
        // Restore's own check, so "fine" here means that a restore takes it.
        subscribers = checkedBackup(file, limitMs).rows.length;
      } catch (error) {
        subscribers = {
          problem: describeCause(error)
            .replace(/^Error: .*? is not a backup/, "not a backup")
            .replace(/^Error: .*? cannot be restored/, "cannot be restored"),
        };
      }
      return { file, bytes, modified, subscribers };
    },
  );
}
