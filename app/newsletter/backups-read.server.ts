// Reading the embedded store's backups: checking that a file is one, and the owner's listing of the backup folder.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { newestFirst } from "~/newsletter/backup-plan.server";
import type { BackupRow } from "~/newsletter/stores/sqlite.server";
import { describeCause } from "~/newsletter/stores/types.server";

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
  return newestFirst(folderEntries(dir).filter(({ name }) => name.endsWith(".sqlite"))).map(
    ({ name, bytes, modified }) => {
      const file = path.join(dir, name);
      let subscribers: BackupListing["subscribers"];
      try {
        subscribers = readBackup(file).length;
      } catch (error) {
        subscribers = { problem: describeCause(error).replace(/^Error: .*? is not a backup/, "not a backup") };
      }
      return { file, bytes, modified, subscribers };
    },
  );
}
