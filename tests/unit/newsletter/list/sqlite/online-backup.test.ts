import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { onlineBackup } from "~/newsletter/list/sqlite/online-backup.server";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function liveFile() {
  const dir = mkdtempSync(path.join(tmpdir(), "online-backup-"));
  dirs.push(dir);
  const db = new DatabaseSync(path.join(dir, "live.sqlite"));
  db.exec("pragma journal_mode = wal; create table t (a integer); insert into t values (1)");
  return { db, copy: path.join(dir, "copy.sqlite") };
}

function rowsIn(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("select count(*) as n from t").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("the online backup of a live list", () => {
  it("begun while a write is in progress on the connection, is taken once the write ends", async () => {
    const { db, copy } = liveFile();
    db.exec("begin immediate; insert into t values (2)");
    const taken = onlineBackup(db, copy, 1);
    // The write ends after the backup's first step has met it: that step fails busy, a later try copies.
    setTimeout(() => db.exec("commit"), 100);
    await taken;
    expect(rowsIn(copy)).toBe(2);
    db.close();
  });

  it("gives up, with SQLite's error, when the write never ends", async () => {
    const { db, copy } = liveFile();
    db.exec("begin immediate");
    await expect(onlineBackup(db, copy, 1)).rejects.toMatchObject({ code: "ERR_SQLITE_ERROR" });
    db.exec("rollback");
    db.close();
  });
});
