// The model's doors of backups: a backup, a restore into the live list, and a restore into the new list a restarted
// server began after the file was lost.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { restoreBackup } from "~/newsletter/backups/restore.server";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { backupDir, door, mailbox, type Model, type Real } from "./world";

export const backup = () =>
  door("backup()", async (model, real) => {
    const file = path.join(backupDir(real), `b${++real.serial}.sqlite`);
    mkdirSync(backupDir(real), { recursive: true });
    await real.list.owner.backup(file);
    const addresses = new Set(real.list.owner.rows().map((row) => row.email.toLowerCase()));
    model.backups.push({ file, addresses, left: new Map(model.left) });
    // Whatever `backups` calls fine, restore takes: a restore of it into a copy of today's list, checked too.
    const [listing] = listBackups(backupDir(real)).filter((entry) => entry.file === file);
    if (typeof listing?.subscribers !== "number") throw new Error(`backups calls ${file} ${JSON.stringify(listing)}`);
  });

/**
 * Restores the backup `which` picks (none made: nothing happens). With `loseFirst`, the list's file is lost first and
 * the restarted server begins a new one (a new ledger key) before the owner restores.
 */
async function restoreOne(model: Model, real: Real, which: number, loseFirst: boolean) {
  const chosen = model.backups[which % Math.max(1, model.backups.length)];
  if (!chosen) return null;
  real.list.close();
  const dataDir = path.join(real.dir, "data");
  if (loseFirst) {
    for (const suffix of ["", "-wal", "-shm"]) {
      rmSync(path.join(dataDir, `${SQLITE_FILE_NAME}${suffix}`), { force: true });
    }
    openSqliteList(dataDir).close();
  }
  await restoreBackup(chosen.file, dataDir, backupDir(real), new Date(real.now + ++real.serial * 1000));
  real.list = openSqliteList(dataDir);
  return chosen;
}

export const restore = (which: number) =>
  door(`restore(${which})`, async (model, real) => {
    const chosen = await restoreOne(model, real, which, false);
    if (!chosen) return;
    const index = model.backups.indexOf(chosen);
    // What the owner removed by mistake after this backup comes back, unless its mailbox left since.
    for (const [email, since] of model.removed) {
      if (since <= index || !chosen.addresses.has(email) || model.left.has(mailbox(email))) continue;
      if (!real.list.owner.has(email)) throw new Error(`restore did not bring back ${email}, removed after the backup`);
      model.removed.delete(email);
    }
  });

/** What left after the backup is lost with the file; what had left by then must stay left. */
export const loseAndRestore = (which: number) =>
  door(`loseAndRestore(${which})`, async (model, real) => {
    const chosen = await restoreOne(model, real, which, true);
    if (!chosen) return;
    model.left = new Map(chosen.left);
    model.tokens.clear();
    for (const email of chosen.addresses) {
      if (!model.left.has(mailbox(email)) && !real.list.owner.has(email)) {
        throw new Error(`a restore into a new list did not bring back ${email}`);
      }
      model.removed.delete(email);
    }
  });
