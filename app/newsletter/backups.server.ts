// The embedded store's backups: the automatic ones (one at start-up unless that Brussels day has one, then every
// 24 hours), the owner's listing, and restoring one. The rules are in backup-plan.server.ts; this module does the I/O.
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  BACKUP_INTERVAL_MS,
  backupDueAtStart,
  backupFileName,
  backupSpaceProblem,
  backupsToDelete,
  newestFirst,
  replacedFileName,
  stalePartials,
} from "~/newsletter/backup-plan.server";
import {
  type AddBackReport,
  isLogLostUnderOpenFile,
  lostLogMessage,
  openSqliteStore,
  SQLITE_FILE_NAME,
  type SqliteStore,
  StoreFileError,
  WHOLE_FILE,
} from "~/newsletter/stores/sqlite.server";
import { describeCause } from "~/newsletter/stores/types.server";

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
const names = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The bytes an unprivileged process may still write on the disk holding `dir`. */
export const freeBytesOn = (dir: string) => {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize;
};

/** The folder's files with their size and when each was last written (one deleted meanwhile is left out). */
const entries = (dir: string) =>
  names(dir).flatMap((name) => {
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    return stat ? [{ name, bytes: stat.size, modified: stat.mtime }] : [];
  });

/** Flushes a file (or a folder's entries) to the disk: a rename is only as durable as the folder that records it. */
function fsyncPath(target: string) {
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies `from` to `to` through a temporary name in the same folder: `to` is whole or absent, never half-written. */
function copyAtomically(from: string, to: string) {
  const partial = path.join(path.dirname(to), `.${path.basename(to)}.partial`);
  try {
    copyFileSync(from, partial);
    fsyncPath(partial);
    renameSync(partial, to);
    fsyncPath(path.dirname(to));
  } finally {
    rmSync(partial, { force: true });
  }
}

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
  const scraps = stalePartials(entries(dir), now).map((name) => path.join(dir, name));
  for (const scrap of scraps) rmSync(scrap, { force: true });
  const copyBytes = fileSize(store.file) + fileSize(`${store.file}-wal`);
  const tooFull = backupSpaceProblem(dir, freeBytes(dir), copyBytes, BACKUP_RESERVE_BYTES);
  if (tooFull) throw new Error(tooFull);
  const file = path.join(dir, backupFileName(now));
  if (existsSync(file)) throw new Error(`${file} already exists`);
  // Written as .<name>.partial, fsynced, then renamed: a backup's name never holds half a file.
  const subscribers = await store.backup(file);
  const removed = backupsToDelete(names(dir), keep).map((name) => path.join(dir, name));
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
    existing = names(settings.dir);
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

/** One subscriber as a backup holds it. */
export interface BackupRow {
  email: string;
  createdAt: string;
  unsubscribeToken: string | null;
}

/**
 * Reads a backup after checking that it is one: a SQLite file that passes its integrity check and holds this store's
 * table. Throws an error that says what is wrong otherwise; never writes to the file.
 */
export function readBackup(file: string): BackupRow[] {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    const check = db.prepare("pragma integrity_check").all() as { integrity_check: string }[];
    if (check.length !== 1 || check[0]!.integrity_check !== "ok") {
      throw new Error(`its integrity check fails (${check.map((row) => row.integrity_check).join("; ")})`);
    }
    const columns = new Set(
      (db.prepare("pragma table_info(newsletter_subscribers)").all() as { name: string }[]).map((c) => c.name),
    );
    if (!columns.has("email") || !columns.has("created_at")) throw new Error("it has no newsletter_subscribers table");
    const token = columns.has("unsubscribe_token") ? "unsubscribe_token" : "null";
    return db
      .prepare(
        `select email, created_at as createdAt, ${token} as unsubscribeToken from newsletter_subscribers order by id`,
      )
      .all() as unknown as BackupRow[];
  } catch (error) {
    throw new Error(`${file} is not a backup of the newsletter list: ${describeCause(error).replace(/^Error: /, "")}`, {
      cause: error,
    });
  } finally {
    db?.close();
  }
}

export interface BackupListing {
  file: string;
  bytes: number;
  modified: Date;
  /** How many subscribers it holds, or why it is not a usable backup. */
  subscribers: number | { problem: string };
}

/** Every SQLite file in the backup folder, newest first (by the time in its name, else its own), each checked. */
export function listBackups(dir: string): BackupListing[] {
  return newestFirst(entries(dir).filter(({ name }) => name.endsWith(".sqlite"))).map(({ name, bytes, modified }) => {
    const file = path.join(dir, name);
    let subscribers: BackupListing["subscribers"];
    try {
      subscribers = readBackup(file).length;
    } catch (error) {
      subscribers = { problem: describeCause(error).replace(/^Error: .*? is not a backup/, "not a backup") };
    }
    return { file, bytes, modified, subscribers };
  });
}

export type RestoreReport =
  | {
      kind: "replaced";
      /** Why the live file was replaced: it was missing, or what was wrong with it. */
      reason: string;
      /** Where the file it replaced was kept, if there was one. */
      keptAs: string | null;
      /** Where the old file's log (-wal, -shm) was kept, with the file or without it: it may hold the last commits. */
      keptLog: string[];
      subscribers: number;
    }
  | ({ kind: "added back"; keptAs: string; before: number; after: number } & AddBackReport);

/**
 * Whether the live file can be used as it is: null if so, else what is wrong (it is absent, damaged, not ours). Throws
 * when its log went from under a running server: the file is whole, and replacing it would lose what the server holds.
 */
function liveFileProblem(file: string): string | null {
  if (!existsSync(file)) return "it was missing";
  try {
    readBackup(file);
    return null;
  } catch (error) {
    if (isLogLostUnderOpenFile(file, error)) throw new StoreFileError(lostLogMessage(file));
    return describeCause(error).replace(/^Error: .*? is not a backup of the newsletter list: /, "");
  }
}

/**
 * Restores a backup into DATA_DIR. A missing or unusable live file (the server stopped) is replaced by the backup,
 * the old one kept beside the backups. A healthy live list (the server may be running) keeps every row it has and
 * gets back the backup's addresses it lacks, except readers who unsubscribed by their link since; a copy of the list
 * as it was is kept first.
 */
export async function restoreBackup(
  backup: string,
  dataDir: string,
  backupDir: string,
  now = new Date(),
): Promise<RestoreReport> {
  const source = path.resolve(backup);
  const rows = readBackup(source);
  const live = path.join(path.resolve(dataDir), SQLITE_FILE_NAME);
  mkdirSync(backupDir, { recursive: true });
  const keptAs = path.join(backupDir, replacedFileName(now));
  if (existsSync(keptAs)) throw new Error(`${keptAs} already exists: try again in a second`);

  const problem = liveFileProblem(live);
  if (problem) {
    // Byte for byte: a damaged file cannot be copied by SQLite, and may still hold something. Its log too, even
    // without the file (deleted by hand, say): the last commits may be in it and nowhere else.
    const kept = existsSync(live) ? keptAs : null;
    if (kept) copyAtomically(live, kept);
    const keptLog: string[] = [];
    for (const suffix of ["-wal", "-shm"]) {
      if (!existsSync(`${live}${suffix}`)) continue;
      copyAtomically(`${live}${suffix}`, `${keptAs}${suffix}`);
      keptLog.push(`${keptAs}${suffix}`);
    }
    mkdirSync(path.dirname(live), { recursive: true });
    // The old log belongs to the old file: replayed onto the backup it would corrupt it. It is kept above.
    rmSync(`${live}-wal`, { force: true });
    rmSync(`${live}-shm`, { force: true });
    copyAtomically(source, live);
    const store = openSqliteStore(dataDir);
    try {
      return { kind: "replaced", reason: problem, keptAs: kept, keptLog, subscribers: store.count() };
    } finally {
      store.close();
    }
  }

  const store = openSqliteStore(dataDir);
  try {
    // The owner's tool runs in a process of its own, beside the server that may be taking sign-ups: one step.
    const before = await store.backup(keptAs, { stepPages: WHOLE_FILE });
    const report = store.addBack(rows);
    return { kind: "added back", keptAs, before, after: store.count(), ...report };
  } finally {
    store.close();
  }
}
