// The readers of a send in the embedded list: confirmed, not suppressed, and of a mailbox with no tombstone (the
// ledger's promise, checked here too rather than trusted to every door that writes a row).
import type { DatabaseSync } from "node:sqlite";
import type { Reader } from "~/newsletter/list/subscriber-list.server";

const MAILABLE =
  "state = 'confirmed' and suppressed_reason is null and unsubscribe_token is not null and " +
  "not exists (select 1 from newsletter_tombstones t where t.mailbox = coalesce(newsletter_subscribers.mailbox, mailbox_hash(email)))";

/** Every confirmed reader, oldest first. */
export const confirmedReaders = (db: DatabaseSync): Reader[] =>
  db
    .prepare(`select email, unsubscribe_token as token from newsletter_subscribers where ${MAILABLE} order by id`)
    .all() as unknown as Reader[];

/** One indexed lookup per mail (the token is unique): exact, where re-reading 10,000 rows would block the server. */
export const isConfirmedReader = (db: DatabaseSync, token: string): boolean =>
  db.prepare(`select 1 from newsletter_subscribers where unsubscribe_token = ? and ${MAILABLE}`).get(token) !==
  undefined;
