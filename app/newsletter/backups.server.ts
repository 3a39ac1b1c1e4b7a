// The embedded store's automatic backups: one at start-up unless that Brussels day has one, then every 24 hours. The
// rules are in backup-plan.server.ts; this module does the I/O. Reading and restoring a backup: backups-read.server.ts
// and backups-restore.server.ts.
import { mkdirSync, rmSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import {
  BACKUP_INTERVAL_MS,
  backupDueAtStart,
  backupFileName,
  backupSpaceProblem,
  backupsToDelete,
  stalePartials,
} from "~/newsletter/backup-plan.server";
import { folderEntries, folderNames } from "~/newsletter/backups-read.server";
import type { SqliteStore } from "~/newsletter/stores/sqlite.server";
import { freeBytesOn } from "~/newsletter/stores/sqlite/durable-files.server";
import { describeCause } from "~/newsletter/stores/types.server";

export { type BackupListing, listBackups, readBackup } from "~/newsletter/backups-read.server";
export { type RestoreReport, restoreBackup } from "~/newsletter/backups-restore.server";
export type { BackupRow } from "~/newsletter/stores/sqlite.server";
export { freeBytesOn };

export interface BackupSettings {
  /** The folder the backups go to (created when needed). */
  dir: string;
  /** How many automatic backups to keep, newest first. */
  keep: number;
  /** The time zone whose date says whether start-up owes a backup. */
  timeZone: string;
}

/**
 * Left free on the backup folder's disk after a copy. With the default folder that disk is DATA_DIR's, and sign-ups
 * need room there more than one more backup does.
 */
const BACKUP_RESERVE_BYTES = 16 * 1024 * 1024;

const fileSize = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export interface WrittenBackup {
  file: string;
  subscribers: number;
  /** Older automatic backups removed to keep the newest `keep`. */
  removed: string[];
  /** Partial copies a crash had left, deleted first. */
  scraps: string[];
}

/**
 * Writes one consistent backup of the live store into `settings.dir` under its time's name, then prunes. `freeBytes`
 * reads the disk's free space (tests stand in for it to fill a disk in the middle of a copy).
 */
export async function writeBackup(
  store: SqliteStore,
  settings: BackupSettings,
  now = new Date(),
  freeBytes = freeBytesOn,
): Promise<WrittenBackup> {
  const { dir, keep } = settings;
  mkdirSync(dir, { recursive: true });
  // Before measuring the room: a crash's scraps are a whole copy each, or most of one.
  const scraps = stalePartials(folderEntries(dir), now).map((name) => path.join(dir, name));
  for (const scrap of scraps) rmSync(scrap, { force: true });
  const copyBytes = fileSize(store.file) + fileSize(`${store.file}-wal`);
  const tooFull = backupSpaceProblem(dir, freeBytes(dir), copyBytes, BACKUP_RESERVE_BYTES);
  if (tooFull) throw new Error(tooFull);
  const file = path.join(dir, backupFileName(now));
  if (existsSync(file)) throw new Error(`${file} already exists`);
  // Written as .<name>.partial, fsynced, then renamed: a backup's name never holds half a file.
  const subscribers = await store.backup(file);
  const removed = backupsToDelete(folderNames(dir), keep).map((name) => path.join(dir, name));
  for (const old of removed) rmSync(old, { force: true });
  return { file, subscribers, removed, scraps };
}

/**
 * Starts the automatic backups of the live store and answers how to stop them: the answer settles once a copy under
 * way has finished, so a shutdown does not cut one short. A failure is one log line: the store, the sign-ups and
 * /healthz never depend on a backup.
 */
export function startAutomaticBackups(store: SqliteStore, settings: BackupSettings): () => Promise<void> {
  let stopped = false;
  const once = async (due: Date) => {
    if (stopped) return;
    try {
      const { file, subscribers, removed, scraps } = await writeBackup(store, settings, due);
      const pruned = removed.length ? `; removed ${removed.length} older (keeping ${settings.keep})` : "";
      const cleared = scraps.length ? `; deleted ${scraps.length} partial file(s) a crash left` : "";
      console.info(`Newsletter backup: ${subscribers} subscribers in ${file}${pruned}${cleared}.`);
    } catch (error) {
      console.error(`Newsletter backup failed, sign-ups go on (${describeCause(error)}); next try in 24 hours.`);
    }
  };
  // One copy at a time; one that falls due while another runs follows it, named for when it fell due.
  let queue = Promise.resolve();
  const run = () => {
    const due = new Date();
    queue = queue.then(() => once(due));
  };
  let existing: string[] = [];
  try {
    existing = folderNames(settings.dir);
  } catch {
    // Unreadable: the backup itself will say why it fails.
  }
  // Not before the server listens: a large file's copy should not hold up start-up.
  const first = backupDueAtStart(existing, new Date(), settings.timeZone) ? setTimeout(run, 0) : undefined;
  const daily = setInterval(run, BACKUP_INTERVAL_MS);
  first?.unref();
  daily.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(daily);
    return queue;
  };
}
