// One batch send at a time (two senders would each pace themselves to MAIL_RATE_PER_SECOND and together exceed it),
// and when each batch's send started and ended, for `status`. Kept in the outbox's own file (outbox.server.ts opens
// it): taking the lock is one write transaction, so of two senders started together exactly one gets it. A lock
// whose process no longer runs (kill -9, a reboot) is taken over, and that process's claims are the uncertain ones.
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import type { DatabaseSync } from "node:sqlite";

/** The file the lock and records had before they moved into the outbox's: read once more at each open if present. */
export const OLD_SEND_LOG_FILE_NAME = "update-sends.sqlite";

export interface LockHolder {
  owner: string;
  pid: number;
  host: string;
  update: string;
  since: number;
}

export interface SendRecord {
  update: string;
  startedAt: number;
  finishedAt: number | null;
  /** The owner stopped it (Ctrl-C): the web server leaves it alone until the command runs again. */
  paused: boolean;
  /** Why the relay stopped it last, with what to fix, until a run goes on or it ends. */
  stopped: string | null;
  /**
   * Each mail's refusal (a bounce, a complaint) is noted on its own outbox row: true for a send started by a version
   * that notes them, false for one started before (its rows never learned who bounced or complained).
   */
  refusalsKept: boolean;
}

export type LockResult =
  | { kind: "taken"; /** The dead holder whose lock this replaced, if any. */ previous: LockHolder | null }
  | { kind: "busy"; holder: LockHolder };

/** Whether a process of this machine still runs (EPERM: it runs, as someone else). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Another machine's process cannot be checked from here: it counts as running (the message says what to do). */
const alive = (holder: LockHolder) => holder.host !== hostname() || processRuns(holder.pid);

export interface SendLog {
  /** Takes the lock for `update` unless a running process holds it. */
  take(owner: string, update: string, now?: number): LockResult;
  /**
   * Gives the lock back (only its owner can): `finished` notes when the send ended, `paused` that the owner stopped
   * it (the web server does not take it up).
   */
  release(owner: string, end: { finished: boolean; paused?: boolean }, now?: number): void;
  /** Notes that the update's send ended after its sender gave the lock back (its retries came through). */
  markFinished(update: string, now?: number): void;
  /** Notes that the relay stopped the update's send, and why (what `status` says until a run goes on). */
  noteStopped(update: string, reason: string): void;
  /** The lock's holder if that process still runs. */
  liveHolder(): LockHolder | null;
  records(): SendRecord[];
}

export const SEND_LOG_SCHEMA = `
  create table if not exists send_lock (
    id integer primary key check (id = 1), owner text not null, pid integer not null, host text not null,
    update_name text not null, since integer not null);
  create table if not exists update_sends (
    update_name text primary key, started_at integer not null, finished_at integer,
    paused integer not null default 0, stopped text, refusals_kept integer not null default 0);
`;

/**
 * A file made before a send's stop was noted, or before each mail's refusal was: the columns. The sends it holds get
 * `refusals_kept` 0: their rows never learned who bounced or complained, and `status` must not count them as none.
 */
export function addLaterColumns(db: DatabaseSync) {
  const columns = db.prepare("select name from pragma_table_info('update_sends')").all() as { name: string }[];
  if (!columns.some((column) => column.name === "stopped")) db.exec("alter table update_sends add column stopped text");
  if (!columns.some((column) => column.name === "refusals_kept")) {
    db.exec("alter table update_sends add column refusals_kept integer not null default 0");
  }
}

/** The records of an older version's own file come along (the lock does not: its sender is gone by now). */
export function importOldSendLog(db: DatabaseSync, oldFile: string) {
  if (!existsSync(oldFile)) return;
  db.prepare("attach database ? as old").run(oldFile);
  try {
    const tables = db.prepare("select name from old.sqlite_schema where name = 'update_sends'").all();
    if (tables.length > 0) {
      db.exec(
        "insert or ignore into main.update_sends (update_name, started_at, finished_at, paused) " +
          "select update_name, started_at, finished_at, paused from old.update_sends",
      );
    }
  } finally {
    db.exec("detach database old");
  }
}

export function sendLogOn(db: DatabaseSync): SendLog {
  const holderOf = (): LockHolder | null => {
    const row = db.prepare("select owner, pid, host, update_name, since from send_lock where id = 1").get() as
      { owner: string; pid: number; host: string; update_name: string; since: number } | undefined;
    return row ? { owner: row.owner, pid: row.pid, host: row.host, update: row.update_name, since: row.since } : null;
  };
  return {
    take(owner, update, now = Date.now()) {
      db.exec("begin immediate");
      try {
        const previous = holderOf();
        if (previous && alive(previous)) {
          db.exec("rollback");
          return { kind: "busy", holder: previous };
        }
        db.prepare("insert or replace into send_lock values (1, ?, ?, ?, ?, ?)").run(
          owner,
          process.pid,
          hostname(),
          update,
          now,
        );
        db.prepare(
          // A send resumed keeps what it knew: an older send's first mails stay unrecorded.
          "insert into update_sends (update_name, started_at, finished_at, paused, refusals_kept) values (?, ?, null, 0, 1) " +
            "on conflict (update_name) do update set finished_at = null, paused = 0, stopped = null",
        ).run(update, now);
        db.exec("commit");
        return { kind: "taken", previous };
      } catch (error) {
        db.exec("rollback");
        throw error;
      }
    },
    release(owner, { finished, paused = false }, now = Date.now()) {
      const holder = holderOf();
      if (holder?.owner !== owner) return;
      db.prepare("update update_sends set finished_at = ?, paused = ? where update_name = ?").run(
        finished ? now : null,
        paused ? 1 : 0,
        holder.update,
      );
      db.prepare("delete from send_lock where id = 1 and owner = ?").run(owner);
    },
    markFinished(update, now = Date.now()) {
      db.prepare("update update_sends set finished_at = ?, paused = 0, stopped = null where update_name = ?").run(
        now,
        update,
      );
    },
    noteStopped(update, reason) {
      db.prepare("update update_sends set stopped = ? where update_name = ?").run(reason, update);
    },
    liveHolder() {
      const holder = holderOf();
      return holder && alive(holder) ? holder : null;
    },
    records: () =>
      (
        db.prepare("select * from update_sends order by started_at").all() as {
          update_name: string;
          started_at: number;
          finished_at: number | null;
          paused: number;
          stopped: string | null;
          refusals_kept: number;
        }[]
      ).map((row) => ({
        update: row.update_name,
        startedAt: row.started_at,
        finishedAt: row.finished_at,
        paused: row.paused === 1,
        stopped: row.stopped,
        refusalsKept: row.refusals_kept === 1,
      })),
  };
}
