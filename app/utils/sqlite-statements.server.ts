import type { DatabaseSync, StatementSync } from "node:sqlite";

const prepared = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * The statement for `sql` on this connection, prepared once. A statement prepared per call holds SQLite's own memory
 * until V8 happens to collect its small wrapper: a write that runs for every row of a long import would pile them up.
 */
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = new Map()));
  let found = statements.get(sql);
  if (!found) statements.set(sql, (found = db.prepare(sql)));
  return found;
}
