import type { DatabaseSync } from "node:sqlite";

/**
 * Runs `work` in one write transaction: all of it is stored, or none. `synced`: this commit alone waits for the disk
 * (synchronous = full), on a connection that otherwise runs with synchronous = normal and is set back to it after.
 */
export function transaction<T>(db: DatabaseSync, work: () => T, { synced = false } = {}): T {
  if (synced) db.exec("pragma synchronous = full");
  db.exec("begin immediate");
  try {
    const result = work();
    db.exec("commit");
    return result;
  } catch (error) {
    // SQLite may have rolled back already (some errors end the transaction): the error to rethrow is the first one.
    if (db.isTransaction) db.exec("rollback");
    throw error;
  } finally {
    if (synced) db.exec("pragma synchronous = normal");
  }
}
