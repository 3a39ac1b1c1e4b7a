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
  futureBackups,
  stalePartials,
} from "~/newsletter/backups/backup-plan.server";
import { folderEntries, folderNames } from "~/newsletter/backups/backup-folder.server";
import type { SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { freeBytesOn } from "~/newsletter/list/sqlite/durable-files.server";
import { describeCause } from "~/utils/log.server";

export { type BackupListing, listBackups, readBackup } from "~/newsletter/backups/backup-folder.server";
export { type RestoreReport, restoreBackup } from "~/newsletter/backups/restore.server";
export type { BackupRow } from "~/newsletter/list/subscriber-list.server";
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
  /** Automatic backups named after the time of this one: left alone, and named in the log. */
  future: string[];
}

/**
 * Writes one consistent backup of the live store into `settings.dir` under its time's name, then prunes. `freeBytes`
 * reads the disk's free space (tests stand in for it to fill a disk in the middle of a copy).
 */
export async function writeBackup(
  store: SqliteList,
  settings: BackupSettings,
  now = new Date(),
  freeBytes = freeBytesOn,
): Promise<WrittenBackup> {
  const { dir, keep } = settings;
  mkdirSync(dir, { recursive: true });
  // Before measuring the room: a crash's scraps are a whole copy each, or most of one.
  const scraps = stalePartials(folderEntries(dir)).map((name) => path.join(dir, name));
  for (const scrap of scraps) rmSync(scrap, { force: true });
  const copyBytes = fileSize(store.file) + fileSize(`${store.file}-wal`);
  const tooFull = backupSpaceProblem(dir, freeBytes(dir), copyBytes, BACKUP_RESERVE_BYTES);
  if (tooFull) throw new Error(tooFull);
  const file = path.join(dir, backupFileName(now));
  if (existsSync(file)) throw new Error(`${file} already exists`);
  // Written as .<name>.partial, fsynced, then renamed: a backup's name never holds half a file.
  const subscribers = await store.owner.backup(file);
  const present = folderNames(dir);
  const made = path.basename(file);
  const removed = backupsToDelete(present, keep, { now, made }).map((name) => path.join(dir, name));
  for (const old of removed) rmSync(old, { force: true });
  const future = futureBackups(present, now).map((name) => path.join(dir, name));
  return { file, subscribers, removed, scraps, future };
}

/**
 * Starts the automatic backups of the live store and answers how to stop them: the answer settles once a copy under
 * way has finished, so a shutdown does not cut one short. A failure is one log line: the store, the sign-ups and
 * /healthz never depend on a backup.
 */
export function startAutomaticBackups(store: SqliteList, settings: BackupSettings): () => Promise<void> {
  let stopped = false;
  const once = async (due: Date) => {
    if (stopped) return;
    try {
      const { file, subscribers, removed, scraps, future } = await writeBackup(store, settings, due);
      const pruned = removed.length ? `; removed ${removed.length} older (keeping ${settings.keep})` : "";
      const cleared = scraps.length ? `; deleted ${scraps.length} partial file(s) a crash left` : "";
      const ahead = future.length ? `; left alone, dated in the future: ${future.join(", ")}` : "";
      console.info(`Newsletter backup: ${subscribers} subscribers in ${file}${pruned}${cleared}${ahead}.`);
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
