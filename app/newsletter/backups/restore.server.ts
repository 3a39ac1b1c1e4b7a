// Restoring a backup of the embedded store: replacing a missing or unusable live file, or putting a backup's rows
// back into a healthy live list. Either way every row is checked first, and nothing is changed if one is refused.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { replacedFileName } from "~/newsletter/backups/backup-plan.server";
import { readBackupContents } from "~/newsletter/list/sqlite/backup-file.server";
import {
  checkBackupRows,
  checkLedger,
  checkUnsubscribedTokens,
  checkWordings,
} from "~/newsletter/backups/row-checks.server";

type CheckedLedger = ReturnType<typeof checkLedger>;
import type { AddBackReport, BackupRow, ConsentWording } from "~/newsletter/list/subscriber-list.server";
import {
  isLogLostUnderOpenFile,
  lostLogMessage,
  openSqliteList,
  SQLITE_FILE_NAME,
  StoreFileError,
  WHOLE_FILE,
} from "~/newsletter/list/sqlite/sqlite-list.server";
import { copyAtomically } from "~/newsletter/list/sqlite/durable-files.server";
import { writeFreshStore } from "~/newsletter/list/sqlite/owner-rows.server";
import { describeCause } from "~/utils/log.server";

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

const withoutPrefix = (error: unknown) =>
  describeCause(error).replace(/^Error: .*? is not a backup of the newsletter list: /, "");

/**
 * Whether the live file can be used as it is: null if so, else what is wrong (it is absent, damaged, not ours, or
 * holds what the store cannot open: a view, a trigger, an address or a token twice). Throws when its log went from
 * under a running server: the file is whole, and replacing it would lose what the server holds.
 */
function liveFileProblem(file: string): string | null {
  if (!existsSync(file)) return "it was missing";
  try {
    checkBackupRows(readBackupContents(file).rows, { eachRow: false });
    return null;
  } catch (error) {
    if (isLogLostUnderOpenFile(file, error)) throw new StoreFileError(lostLogMessage(file));
    return withoutPrefix(error);
  }
}

/**
 * A backup's rows (with each reader's state and consent record), unsubscribed readers and consent wordings, each
 * checked as the store would hold it; throws naming what is wrong.
 */
export function checkedBackup(
  source: string,
  limitMs?: number,
): { rows: BackupRow[]; unsubscribed: string[]; wordings: ConsentWording[]; ledger: CheckedLedger } {
  const contents = readBackupContents(source, limitMs);
  try {
    return {
      rows: checkBackupRows(contents.rows),
      unsubscribed: checkUnsubscribedTokens(contents.unsubscribed),
      wordings: checkWordings(contents.wordings),
      ledger: checkLedger(contents.tombstones, contents.ledgerKey),
    };
  } catch (error) {
    throw new Error(`${source} cannot be restored: it holds ${withoutPrefix(error).replace(/^Error: /, "")}`, {
      cause: error,
    });
  }
}

/** Sets the unusable live file (and its log, which may hold the last commits) aside, byte for byte. */
async function setAside(live: string, keptAs: string) {
  // Byte for byte: a damaged file cannot be copied by SQLite, and may still hold something. Its log too, even
  // without the file (deleted by hand, say): the last commits may be in it and nowhere else.
  const kept = existsSync(live) ? keptAs : null;
  if (kept) await copyAtomically(live, kept);
  const keptLog: string[] = [];
  for (const suffix of ["-wal", "-shm"]) {
    if (!existsSync(`${live}${suffix}`)) continue;
    await copyAtomically(`${live}${suffix}`, `${keptAs}${suffix}`);
    keptLog.push(`${keptAs}${suffix}`);
  }
  return { kept, keptLog };
}

/**
 * Restores a backup into DATA_DIR. A missing or unusable live file (the server stopped) is replaced by a fresh file
 * built from the backup's rows (never the foreign file itself), the old one kept beside the backups. Either way each
 * row keeps its confirmation state and consent record, and the wordings agreed to come back with them. A healthy live
 * list (the server may be running) keeps every row it has and gets back the backup's addresses it lacks, except
 * readers who unsubscribed by their link since; a copy of the list as it was is kept first.
 */
export async function restoreBackup(
  backup: string,
  dataDir: string,
  backupDir: string,
  now = new Date(),
): Promise<RestoreReport> {
  const source = path.resolve(backup);
  const { rows, unsubscribed, wordings, ledger } = checkedBackup(source);
  const live = path.join(path.resolve(dataDir), SQLITE_FILE_NAME);
  mkdirSync(backupDir, { recursive: true });
  const keptAs = path.join(backupDir, replacedFileName(now));
  if (existsSync(keptAs)) throw new Error(`${keptAs} already exists: try again in a second`);

  const problem = liveFileProblem(live);
  if (problem) {
    const { kept, keptLog } = await setAside(live, keptAs);
    mkdirSync(path.dirname(live), { recursive: true });
    // The old log belongs to the old file: replayed onto the new one it would corrupt it. It is kept above.
    rmSync(`${live}-wal`, { force: true });
    rmSync(`${live}-shm`, { force: true });
    await writeFreshStore(live, rows, { unsubscribed, wordings, ledger });
    const list = openSqliteList(dataDir);
    try {
      return { kind: "replaced", reason: problem, keptAs: kept, keptLog, subscribers: list.owner.count() };
    } finally {
      list.close();
    }
  }

  const list = openSqliteList(dataDir);
  try {
    // The owner's tool runs in a process of its own, beside the server that may be taking sign-ups: one step.
    const before = await list.owner.backup(keptAs, { stepPages: WHOLE_FILE });
    const report = list.owner.addBack(rows, wordings, ledger);
    return { kind: "added back", keptAs, before, after: list.owner.count(), ...report };
  } finally {
    list.close();
  }
}
