// SQLite's online backup, through node:sqlite, taken again when the live file was busy at its first step.
import { backup, type DatabaseSync } from "node:sqlite";

/** How often a backup that met a write in progress is begun again, and how long it waits before each new try. */
export const BUSY_TRIES = 40;
const BUSY_WAIT_MS = 25;

/**
 * A write on the same connection (a sign-up's transaction) when the first step runs leaves SQLite answering BUSY or
 * LOCKED, which SQLite calls passing; node:sqlite then rejects with errcode 0 ("not an error"), or with BUSY/LOCKED.
 * Without another try, one sign-up at the wrong moment would cost the day's backup.
 */
function isBusy(error: unknown): boolean {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== "ERR_SQLITE_ERROR") return false;
  const errcode = (error as { errcode?: unknown }).errcode;
  return errcode === 0 || errcode === 5 || errcode === 6 || errcode === 261 || errcode === 262;
}

/** Copies `db` to `file` in steps of `rate` pages; a busy first step is tried again, a bounded number of times. */
export async function onlineBackup(db: DatabaseSync, file: string, rate: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await backup(db, file, { rate });
      return;
    } catch (error) {
      if (!isBusy(error) || attempt >= BUSY_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
    }
  }
}
