// The webhooks' own small SQLite file under DATA_DIR (apart from the list, so it works with Supabase too): the ids of
// the relays' events already applied, so a relay's retry after a restart is never counted twice, and the reports
// accepted but not yet applied (a relay that drops a report on any error gets 200 once the report is kept here).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Relay, RelayEvent } from "./types";

/** The journal's file in DATA_DIR. */
export const JOURNAL_FILE_NAME = "webhook-journal.sqlite";

/** How long an applied id is remembered: longer than any relay retries (SNS's longest policy is 23 days). */
const REMEMBER_MS = 30 * 24 * 60 * 60 * 1000;
/** Kept reports waiting for the list at most: past this, a new report is answered as the list's own failure. */
export const MAX_KEPT_REPORTS = 100_000;

export interface KeptEvent extends RelayEvent {
  relay: Relay;
}

export interface Journal {
  /** Whether this event was applied to the list already. */
  applied(eventId: string): boolean;
  /** Records that the event was applied (and drops it from the kept reports, if it was one). */
  markApplied(eventId: string, now: Date): void;
  /** Keeps events to apply later; false when the journal is full. Ids already kept or applied are skipped. */
  keep(relay: Relay, events: readonly RelayEvent[]): boolean;
  /** The oldest kept events, up to `limit`. */
  kept(limit: number): KeptEvent[];
  keptCount(): number;
  close(): void;
}

const SCHEMA = `
  create table if not exists applied (event_id text primary key, at integer not null) without rowid;
  create index if not exists applied_at on applied (at);
  create table if not exists kept (
    seq integer primary key autoincrement,
    event_id text not null unique,
    relay text not null,
    kind text not null,
    email text not null,
    detail text not null,
    at integer not null
  );`;

export function openJournal(dataDir: string): Journal {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, JOURNAL_FILE_NAME));
  db.exec("pragma journal_mode = wal; pragma synchronous = full; pragma busy_timeout = 2000;");
  db.exec(SCHEMA);
  const isApplied = db.prepare("select 1 from applied where event_id = ?");
  const insertApplied = db.prepare("insert or ignore into applied (event_id, at) values (?, ?)");
  const dropKept = db.prepare("delete from kept where event_id = ?");
  const forget = db.prepare("delete from applied where at < ?");
  const insertKept = db.prepare(
    "insert or ignore into kept (event_id, relay, kind, email, detail, at) values (?, ?, ?, ?, ?, ?)",
  );
  const listKept = db.prepare("select event_id, relay, kind, email, detail, at from kept order by seq limit ?");
  const countKept = db.prepare("select count(*) as n from kept");
  const keptCount = () => (countKept.get() as { n: number }).n;
  let writes = 0;

  return {
    applied: (eventId) => isApplied.get(eventId) !== undefined,
    markApplied(eventId, now) {
      db.exec("begin immediate");
      try {
        insertApplied.run(eventId, now.getTime());
        dropKept.run(eventId);
        // Old ids go now and then, not on every write.
        if (++writes % 500 === 1) forget.run(now.getTime() - REMEMBER_MS);
        db.exec("commit");
      } catch (error) {
        db.exec("rollback");
        throw error;
      }
    },
    keep(relay, events) {
      if (keptCount() + events.length > MAX_KEPT_REPORTS) return false;
      db.exec("begin immediate");
      try {
        for (const event of events) {
          if (isApplied.get(event.eventId) !== undefined) continue;
          insertKept.run(event.eventId, relay, event.kind, event.email, event.detail, event.at.getTime());
        }
        db.exec("commit");
      } catch (error) {
        db.exec("rollback");
        throw error;
      }
      return true;
    },
    kept: (limit) =>
      (
        listKept.all(limit) as {
          event_id: string;
          relay: Relay;
          kind: RelayEvent["kind"];
          email: string;
          detail: string;
          at: number;
        }[]
      ).map((row) => ({
        relay: row.relay,
        kind: row.kind,
        email: row.email,
        detail: row.detail,
        eventId: row.event_id,
        at: new Date(row.at),
      })),
    keptCount,
    close: () => db.close(),
  };
}
