// The owner's backup and restore when the list lives in Supabase: the same file as the embedded store's backups, the
// same check before anything is changed, and a copy of the list as it was kept first, as the embedded restore keeps
// one. The rules of each row are the database's (app/newsletter/list/supabase/owner-backup.server.ts).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { replacedFileName } from "~/newsletter/backups/backup-plan.server";
import { checkedBackup } from "~/newsletter/backups/restore.server";
import {
  supabaseOwnerBackup,
  type SupabaseOwnerOptions,
  type SupabaseRestoreReport,
} from "~/newsletter/list/supabase/owner-backup.server";
import { writePagedBackup } from "~/newsletter/list/sqlite/paged-backup-file.server";

export type SupabaseRestore = {
  kind: "added back";
  keptAs: string;
  before: number;
  after: number;
} & SupabaseRestoreReport;

/** Writes a backup of the Supabase list at `target` (which must not exist); answers how many readers it holds. */
export const backupSupabase = (options: SupabaseOwnerOptions, target: string): Promise<number> =>
  writePagedBackup(target, supabaseOwnerBackup(options).pages());

/**
 * Puts a backup back into the Supabase list: refused whole, with nothing changed, when restore's check refuses the
 * file; else a copy of the list as it is goes to the backup folder first, then the backup's tombstones, wordings and
 * readers are written back by the ledger's restore door.
 */
export async function restoreIntoSupabase(
  options: SupabaseOwnerOptions,
  backup: string,
  backupDir: string,
  now = new Date(),
): Promise<SupabaseRestore> {
  const checked = checkedBackup(path.resolve(backup));
  mkdirSync(backupDir, { recursive: true });
  const keptAs = path.join(backupDir, replacedFileName(now));
  if (existsSync(keptAs)) throw new Error(`${keptAs} already exists: try again in a second`);
  const owner = supabaseOwnerBackup(options);
  const before = await writePagedBackup(keptAs, owner.pages());
  const report = await owner.restore(checked);
  // Counted from the copy and what was added: a sign-up meanwhile is not in it.
  return { kind: "added back", keptAs, before, after: before + report.added.length, ...report };
}
