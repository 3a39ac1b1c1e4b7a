// The readers of a send in the embedded list: confirmed readers with their token (pending ones are not readers yet).
import type { DatabaseSync } from "node:sqlite";
import type { Reader } from "~/newsletter/list/subscriber-list.server";
import { listRows } from "~/newsletter/list/sqlite/owner-rows.server";

/** A stored row as the list holds it; a `state` other than confirmed (a pending reader) is not a reader. */
export interface ListedRow {
  email: string;
  unsubscribeToken: string | null;
  state?: string;
  suppression?: unknown;
}

/** A reader of a send: confirmed, with a token, and not suppressed. */
export const isReader = (row: ListedRow): boolean =>
  Boolean(row.unsubscribeToken) && (row.state === undefined || row.state === "confirmed") && !row.suppression;

/** Every confirmed reader, oldest first. */
export const confirmedReaders = (db: DatabaseSync): Reader[] =>
  listRows(db)
    .filter(isReader)
    .map((row) => ({ email: row.email, token: row.unsubscribeToken }));

/** One indexed lookup per mail (the token is unique): exact, where re-reading 10,000 rows would block the server. */
export const isConfirmedReader = (db: DatabaseSync, token: string): boolean =>
  db
    .prepare(
      "select 1 from newsletter_subscribers where unsubscribe_token = ? and state = 'confirmed' " +
        "and suppressed_reason is null",
    )
    .get(token) !== undefined;
