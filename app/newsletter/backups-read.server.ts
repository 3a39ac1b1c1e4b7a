// Reading the embedded store's backups: checking that a file is one, and the owner's listing of the backup folder.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { newestFirst } from "~/newsletter/backup-plan.server";
import { type RawBackup, readInChild } from "~/newsletter/backups-reader.server";
import { showValue } from "~/newsletter/backups-rows.server";
import type { BackupRow } from "~/newsletter/stores/sqlite.server";
import { describeCause } from "~/utils/log.server";

/** The names in a folder; none when it does not exist. */
export const folderNames = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The folder's files with their size and when each was last written (one deleted meanwhile is left out). */
export const folderEntries = (dir: string) =>
  folderNames(dir).flatMap((name) => {
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    return stat ? [{ name, bytes: stat.size, modified: stat.mtime }] : [];
  });

/**
 * How long reading one file may take before it is given up on (the listing goes on with the next file). 300,000
 * subscribers read in about a second here.
 */
export const BACKUP_READ_LIMIT_MS = 60_000;

/** What a backup holds, as read: the rows unchecked (see backups-rows.server.ts); a BLOB is { $blob: its size }. */
export interface BackupContents {
  rows: Record<string, unknown>[];
  /** The tokens of readers who left by their link (none in a file from before that table). */
  unsubscribed: unknown[];
  /** The consent wordings readers agreed to, unchecked (none in a file from before double opt-in). */
  wordings: Record<string, unknown>[];
}

/** newsletter_consent_wordings as the store makes it, or none at all (a file from before double opt-in). */
function checkWordingColumns(present: readonly string[] = []) {
  const missing = ["version", "wording", "first_used_at"].find((column) => !present.includes(column));
  if (present.length > 0 && missing) {
    throw new Error(`its newsletter_consent_wordings table has no ${missing} column`);
  }
}

/**
 * Refuses what the store never makes and a read would run: a view (a query of its own, which may never end) or a
 * trigger, and a newsletter_subscribers that is not a table.
 */
function checkSchemaObjects(objects: RawBackup["objects"]) {
  const foreign = objects.find(({ type }) => type === "view" || type === "trigger");
  if (foreign) throw new Error(`it has a ${foreign.type} (${showValue(foreign.name)}), which the store never makes`);
  if (!objects.some(({ type, name }) => type === "table" && name === "newsletter_subscribers")) {
    throw new Error("it has no newsletter_subscribers table");
  }
}

/** Reads a backup's contents after checking that it is one; see readBackup. */
export function readBackupContents(file: string, limitMs = BACKUP_READ_LIMIT_MS): BackupContents {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  try {
    const read = readInChild(file, limitMs);
    checkSchemaObjects(read.objects);
    const integrity = read.integrity ?? [];
    if (integrity.length !== 1 || integrity[0] !== "ok") {
      throw new Error(`its integrity check fails (${integrity.join("; ")})`);
    }
    const columns = new Set(read.subscriberColumns);
    if (!columns.has("email") || !columns.has("created_at")) throw new Error("it has no newsletter_subscribers table");
    if (!columns.has("id")) throw new Error("its newsletter_subscribers table has no id column");
    checkWordingColumns(read.wordingColumns);
    return { rows: read.rows ?? [], unsubscribed: read.unsubscribed ?? [], wordings: read.wordings ?? [] };
  } catch (error) {
    throw new Error(`${file} is not a backup of the newsletter list: ${describeCause(error).replace(/^Error: /, "")}`, {
      cause: error,
    });
  }
}

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
        subscribers = readBackup(file, limitMs).length;
      } catch (error) {
        subscribers = { problem: describeCause(error).replace(/^Error: .*? is not a backup/, "not a backup") };
      }
      return { file, bytes, modified, subscribers };
    },
  );
}
