import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, vi } from "vitest";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";

/**
 * A fresh DATA_DIR for each test (handed to `madeDir`), every store the test opened closed after it and the folder
 * removed; answers the function that opens a store and keeps it for that cleanup.
 */
export function sqliteStoresPerTest(madeDir: (dir: string) => void) {
  const open: SqliteList[] = [];
  let current = "";
  beforeEach(() => {
    current = mkdtempSync(path.join(tmpdir(), "newsletter-sqlite-"));
    madeDir(current);
  });
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
    rmSync(current, { recursive: true, force: true });
    vi.restoreAllMocks();
  });
  return (dataDir = current) => {
    const store = openSqliteList(dataDir);
    open.push(store);
    return store;
  };
}

/** A list file's subscriber rows in the order they were stored, read-only. */
export function subscriberRows(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare("select id, email, created_at from newsletter_subscribers order by id").all() as {
      id: number;
      email: string;
      created_at: string;
    }[];
  } finally {
    db.close();
  }
}
