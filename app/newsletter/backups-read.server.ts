// Reading the embedded store's backups: checking that a file is one, and the owner's listing of the backup folder.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { newestFirst } from "~/newsletter/backup-plan.server";
import { showValue } from "~/newsletter/backups-rows.server";
import type { BackupRow } from "~/newsletter/stores/sqlite.server";
import { columnsOf } from "~/newsletter/stores/sqlite/schema.server";
import { describeCause } from "~/newsletter/stores/types.server";

/** The names in a folder; none when it does not exist. */
export const folderNames = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The folder's files with their size and when each was last written (one deleted meanwhile is left out). */
export const folderEntries = (dir: string) =>
  folderNames(dir).flatMap((name) => {
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    return stat ? [{ name, bytes: stat.size, modified: stat.mtime }] : [];
  });

/** How long reading one file may take before it is given up on (the listing goes on with the next file). */
export const BACKUP_READ_LIMIT_MS = 60_000;

/** What a backup holds, as read: the rows unchecked (see backups-rows.server.ts), every value as SQLite gave it. */
export interface BackupContents {
  rows: Record<string, unknown>[];
  /** The tokens of readers who left by their link (none in a file from before that table). */
  unsubscribed: unknown[];
}

/**
 * Refuses what the store never makes and a read would run: a view (a query of its own, which may never end) or a
 * trigger, and a newsletter_subscribers that is not a table. Runs before anything reads a row.
 */
function checkSchemaObjects(db: DatabaseSync) {
  const objects = db.prepare("select type, name from sqlite_schema").all() as { type: string; name: string }[];
  const foreign = objects.find(({ type }) => type === "view" || type === "trigger");
  if (foreign) throw new Error(`it has a ${foreign.type} (${showValue(foreign.name)}), which the store never makes`);
  if (!objects.some(({ type, name }) => type === "table" && name === "newsletter_subscribers")) {
    throw new Error("it has no newsletter_subscribers table");
  }
}

/** Every row a statement answers, giving up once `deadline` (a Date.now() time) has passed. */
function allBefore(db: DatabaseSync, sql: string, deadline: number, limitMs: number) {
  const rows: Record<string, unknown>[] = [];
  for (const row of db.prepare(sql).iterate()) {
    if (Date.now() > deadline) throw new Error(`reading it took longer than ${Math.round(limitMs / 1000)} s`);
    rows.push(row as Record<string, unknown>);
  }
  return rows;
}

/** Reads a backup's contents after checking that it is one; see readBackup. */
export function readBackupContents(file: string, limitMs = BACKUP_READ_LIMIT_MS): BackupContents {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const deadline = Date.now() + limitMs;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    checkSchemaObjects(db);
    const check = db.prepare("pragma integrity_check").all() as { integrity_check: string }[];
    if (check.length !== 1 || check[0]!.integrity_check !== "ok") {
      throw new Error(`its integrity check fails (${check.map((row) => row.integrity_check).join("; ")})`);
    }
    const columns = columnsOf(db, "newsletter_subscribers");
    if (!columns.has("email") || !columns.has("created_at")) throw new Error("it has no newsletter_subscribers table");
    const token = columns.has("unsubscribe_token") ? "unsubscribe_token" : "null";
    const rows = allBefore(
      db,
      `select email, created_at as createdAt, ${token} as unsubscribeToken from newsletter_subscribers order by id`,
      deadline,
      limitMs,
    );
    const left = columnsOf(db, "newsletter_unsubscribed").has("unsubscribe_token")
      ? allBefore(db, "select unsubscribe_token as token from newsletter_unsubscribed", deadline, limitMs)
      : [];
    return { rows, unsubscribed: left.map((row) => row.token) };
  } catch (error) {
    throw new Error(`${file} is not a backup of the newsletter list: ${describeCause(error).replace(/^Error: /, "")}`, {
      cause: error,
    });
  } finally {
    db?.close();
  }
}

/**
 * Reads a backup after checking that it is one: a SQLite file that passes its integrity check and holds this store's
 * table, and no view or trigger; read within `limitMs`. Throws an error that says what is wrong otherwise; never
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
