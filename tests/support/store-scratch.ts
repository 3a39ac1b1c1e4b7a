// A scratch folder per test for the embedded store's tests: a DATA_DIR and a backup folder in it, the stores opened
// there closed and the folder removed after each test, console.info silenced (the store logs what it does).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";

export function storeScratch(prefix: string) {
  const scratch = { dir: "", dataDir: "", backupDir: "" };
  const open: SqliteList[] = [];
  beforeEach(() => {
    scratch.dir = mkdtempSync(path.join(tmpdir(), prefix));
    scratch.dataDir = path.join(scratch.dir, "data");
    scratch.backupDir = path.join(scratch.dir, "backups");
    vi.spyOn(console, "info").mockImplementation(() => {});
  });
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
    vi.restoreAllMocks();
    rmSync(scratch.dir, { recursive: true, force: true });
  });
  return {
    scratch,
    /** The store in DATA_DIR (or `dataDir`), closed after the test. */
    openStore(dataDir = scratch.dataDir) {
      const store = openSqliteList(dataDir);
      open.push(store);
      return store;
    },
    /** Closes a store now rather than after the test (its close is what is tested). */
    closeNow(store: SqliteList) {
      open.splice(open.indexOf(store), 1);
      store.close();
    },
  };
}
