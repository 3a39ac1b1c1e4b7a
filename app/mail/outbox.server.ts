/**
 * The durable outbox: one SQLite file (`$DATA_DIR/mail-outbox.sqlite`, whichever store holds the list) that the web
 * server and the owner's commands both drain; it also holds the send lock and records (send-log.server.ts), so the
 * mail's whole state is this one file. One row per mail to send:
 *
 *   kind       'confirm' (a reader's confirmation mail), 'update' (an update to one reader) or 'welcome' (the owner's
 *              welcome to a newly confirmed reader, ref 'welcome')
 *   recipient  the address; ref: what it is about (the update's name; null for 'confirm'). (kind, ref, recipient)
 *              is unique for rows with a ref, so an update is queued once per reader however often it is enqueued.
 *   payload    JSON the composer reads (never a secret such as a confirm token: those are made at send time); a
 *              confirmation's also holds its mailbox key and a pseudonym of the visitor who asked, for the fair limits
 *              (app/newsletter/sign-up/fair-confirmations.server.ts) and the fair order of claims
 *   state      queued -> sending -> sent | failed | skipped, or back to queued (retry); 'uncertain' when a process
 *              died while the row was 'sending' (its lease ran out): it may or may not have left, and it is never
 *              sent again unless someone says so (requeueUncertain).
 *
 * The cycle: `claim` (due rows of some kinds become 'sending' under an owner and a lease, in one write transaction,
 * so two processes never take the same row) -> send -> `recordSent` / `recordRetry` / `recordFailed` /
 * `recordSkipped` / `release` (a send-wide stop: back to queued, the attempt not counted). `markUncertain` turns
 * rows whose lease ran out into 'uncertain' (every claim does it first). All times are milliseconds since the epoch.
 */
import { noteRefusal, removeRecipient } from "~/mail/outbox-recipient.server";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  addLaterColumns,
  importOldSendLog,
  OLD_SEND_LOG_FILE_NAME,
  SEND_LOG_SCHEMA,
  type SendLog,
  sendLogOn,
} from "~/mail/send-log.server";
import {
  type MailKind,
  OUTBOX_STATES,
  type OutboxRow,
  type OutboxState,
  type RawRow,
  ADD_CLAIM_KEY,
  INDEXES,
  lacksClaimKey,
  refusesWelcome,
  type RowFilter,
  TABLE,
  toRow,
  where,
  WIDEN_KINDS,
} from "~/mail/outbox-table.server";
import { transaction } from "~/utils/sqlite-transaction.server";
import { claimOrder } from "~/mail/claim-order.server";

export { OUTBOX_STATES };
export type { MailKind, OutboxRow, OutboxState, RowFilter };

export interface NewMail {
  kind: MailKind;
  recipient: string;
  ref?: string | null;
  payload?: Record<string, unknown>;
  /** Not before this time (default: now). */
  notBefore?: number;
  /** Its place in line among the due rows of its kind (default: when it is due): see claim-order.server.ts. */
  placeInLine?: number;
}

/** The payload fields the fair limits count by (each has its index). */
export const FAIR_FIELDS = ["mailbox", "visitor", "network"] as const;
export type FairField = (typeof FAIR_FIELDS)[number];

export interface Outbox {
  readonly file: string;
  /** The batch sends' lock and records, in this same file (send-log.server.ts). */
  readonly sends: SendLog;
  /** Queues one mail; its id, or null when a row with the same (kind, ref, recipient) is already there. */
  enqueue(mail: NewMail, now?: number): number | null;
  /** Queues many in one transaction; how many were new. */
  enqueueMany(mails: NewMail[], now?: number): number;
  /** Takes up to `limit` due rows of these kinds, oldest due first, for `owner` until now + leaseMs. */
  claim(
    options: { kinds: readonly MailKind[]; limit: number; owner: string; leaseMs: number; ref?: string },
    now?: number,
  ): OutboxRow[];
  /** Delivered; `response` (the relay's answer) is kept in lastError's column as the row's last word. */
  recordSent(id: number, owner: string, response: string, now?: number): void;
  recordRetry(id: number, owner: string, error: string, nextAttemptAt: number, now?: number): void;
  recordFailed(id: number, owner: string, error: string, now?: number): void;
  recordSkipped(id: number, owner: string, reason: string, now?: number): void;
  /** Handed over with no answer: 'uncertain' at once, never retried unless requeued (requeueUncertain). */
  recordUncertain(id: number, owner: string, reason: string, now?: number): void;
  /** A send-wide stop: the row goes back to the queue, due at `nextAttemptAt`, the attempt not counted. */
  release(id: number, owner: string, error: string, nextAttemptAt: number, now?: number): void;
  /** Rows left 'sending' past their lease (their process died) become 'uncertain'; how many. */
  markUncertain(now?: number): number;
  /** Every row `owner` holds 'sending' becomes 'uncertain' at once, lease or not: that process is known dead. */
  markUncertainOf(owner: string, now?: number): number;
  /** Puts 'uncertain' rows matching the filter back in the queue (the owner decided to send them again). */
  requeueUncertain(filter: RowFilter, now?: number): number;
  /** How many rows are in each state (zeros included). */
  counts(filter?: RowFilter): Record<OutboxState, number>;
  rows(filter?: RowFilter): OutboxRow[];
  /** Mails of this kind sent since `since`, and rows of it now 'sending' (for the hourly cap). */
  sentSince(kind: MailKind, since: number): number;
  /** Rows of this kind queued after `since`, in any state, whose payload holds `value` at `field` (the fair limits). */
  queuedSince(kind: MailKind, since: number, field: FairField, value: string): number;
  /** Like release, but the row goes behind every row due now (the breaker's: other readers are asked first). */
  releaseToBack(id: number, owner: string, error: string, now?: number): void;
  /** Up to `limit` rows of this kind queued at or before `queuedBefore` are skipped with `reason`, in one statement. */
  dropExpired(kind: MailKind, queuedBefore: number, reason: string, limit: number, now?: number): number;
  /** The earliest time a queued row of these kinds is due, if any. */
  nextDue(kinds: readonly MailKind[]): number | null;
  /**
   * Erases this address (any letter case) from every row, keeping each row's place in its send's record and the
   * refusal it recorded (`noteRefusal`), nothing else of the payload; how many.
   */
  removeRecipient(email: string): number;
  /**
   * Writes a relay's refusal of this address into the record of every update mail handed to it or refused (its
   * payload's `refusal`; a complaint outranks a bounce): a finished send's count of bounced and complained readers
   * comes from its own rows, so a later unsuppress, remove or import leaves it as it was. How many rows.
   */
  noteRefusal(email: string, reason: "bounced" | "complained"): number;
  close(): void;
}

export function openOutbox(file: string): Outbox {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec("pragma busy_timeout = 5000");
  db.exec("pragma journal_mode = wal");
  // Only a claim must reach the disk before its mail leaves (claim syncs it): see docs/decisions/018-sending-updates.md.
  db.exec("pragma synchronous = normal");
  db.exec(TABLE);
  // Looked at inside the write transaction: of two processes opening an old file at once, one widens it.
  const tableSql = () =>
    (
      db.prepare("select sql from sqlite_master where type = 'table' and name = 'mail_outbox'").get() as
        { sql: string } | undefined
    )?.sql;
  transaction(db, () => {
    if (refusesWelcome(tableSql())) db.exec(WIDEN_KINDS);
    if (lacksClaimKey(tableSql())) db.exec(ADD_CLAIM_KEY);
    db.exec(INDEXES);
  });
  db.exec(SEND_LOG_SCHEMA);
  addLaterColumns(db);
  importOldSendLog(db, path.join(path.dirname(file), OLD_SEND_LOG_FILE_NAME));

  const insert = db.prepare(
    "insert into mail_outbox (kind, recipient, ref, payload, next_attempt_at, created_at, updated_at, claim_key) " +
      "values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing",
  );
  // sent_at is set only by a delivery: a failure keeps whatever it held (nothing, for a row never sent).
  const finish = (state: OutboxState) =>
    db.prepare(
      `update mail_outbox set state = '${state}', attempts = attempts + 1, last_error = ?, updated_at = ?,` +
        ` sent_at = case when '${state}' = 'sent' then ? else sent_at end, claimed_by = null, lease_until = null` +
        " where id = ? and state = 'sending' and claimed_by = ?",
    );
  const sent = finish("sent");
  const failed = finish("failed");
  const skipped = finish("skipped");
  const handedOver = finish("uncertain");
  // A row never waits in line ahead of its own next attempt: claim_key stays at or after next_attempt_at.
  const retry = db.prepare(
    "update mail_outbox set state = 'queued', attempts = attempts + ?1, last_error = ?2, next_attempt_at = ?3," +
      " claim_key = max(coalesce(claim_key, 0), ?3), updated_at = ?4, claimed_by = null, lease_until = null" +
      " where id = ?5 and state = 'sending' and claimed_by = ?6",
  );
  // Behind every row due now, for the breaker: the next pass asks the relay about other readers first.
  const toBack = db.prepare(
    "update mail_outbox set state = 'queued', last_error = ?1, next_attempt_at = ?2," +
      " claim_key = max(coalesce(claim_key, 0), ?2) + 1, updated_at = ?2, claimed_by = null, lease_until = null" +
      " where id = ?3 and state = 'sending' and claimed_by = ?4",
  );
  // Confirmation mails whose sign-up has expired (its pending reader removed): nobody can confirm with them.
  const expire = db.prepare(
    "update mail_outbox set state = 'skipped', last_error = ?, updated_at = ?, claimed_by = null, lease_until = null" +
      " where id in (select id from mail_outbox where kind = ? and state = 'queued' and created_at <= ? limit ?)",
  );
  // Past the lease, or held by an owner known dead (null: none).
  const uncertain = db.prepare(
    "update mail_outbox set state = 'uncertain', updated_at = ?, last_error = coalesce(last_error, " +
      "'the sending process stopped during the attempt') where state = 'sending' and (lease_until < ? or claimed_by = ?)",
  );

  // Both run on a sign-up's request path (the hourly cap and the fair limits), so they are prepared once.
  const countSentSince = db.prepare(
    "select (select count(*) from mail_outbox where kind = ?1 and state = 'sent' and sent_at >= ?2) + " +
      "(select count(*) from mail_outbox where kind = ?1 and state = 'sending') as n",
  );
  // One statement per field, each the expression of its index (outbox-table.server.ts).
  const countQueuedSince = Object.fromEntries(
    FAIR_FIELDS.map((field) => [
      field,
      db.prepare(
        `select count(*) as n from mail_outbox where kind = ? and json_extract(payload, '$.${field}') = ? ` +
          "and created_at > ?",
      ),
    ]),
  ) as Record<FairField, StatementSync>;

  const enqueueOne = (mail: NewMail, now: number): number | null => {
    const due = mail.notBefore ?? now;
    const result = insert.run(
      mail.kind,
      mail.recipient,
      mail.ref ?? null,
      JSON.stringify(mail.payload ?? {}),
      due,
      now,
      now,
      Math.max(due, mail.placeInLine ?? due),
    );
    return result.changes > 0 ? Number(result.lastInsertRowid) : null;
  };

  const outbox: Outbox = {
    file,
    sends: sendLogOn(db),
    enqueue: (mail, now = Date.now()) => enqueueOne(mail, now),
    enqueueMany: (mails, now = Date.now()) =>
      transaction(db, () => mails.reduce((added, mail) => added + (enqueueOne(mail, now) === null ? 0 : 1), 0)),
    claim({ kinds, limit, owner, leaseMs, ref }, now = Date.now()) {
      if (kinds.length === 0 || limit <= 0) return [];
      return transaction(
        db,
        () => {
          uncertain.run(now, now, null);
          const order = claimOrder({ kinds, ref, limit, now });
          const raws = db
            .prepare(
              "update mail_outbox set state = 'sending', claimed_by = ?, lease_until = ?, updated_at = ? " +
                `where id in (${order.sql}) returning *`,
            )
            .all(owner, now + leaseMs, now, ...order.values) as unknown as RawRow[];
          return raws.map(toRow).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
        },
        { synced: true },
      );
    },
    // The relay's answer (its queue id) is what a delivery leaves behind, for tracing one mail in the relay's logs.
    recordSent: (id, owner, response, now = Date.now()) => void sent.run(response, now, now, id, owner),
    recordFailed: (id, owner, error, now = Date.now()) => void failed.run(error, now, now, id, owner),
    recordSkipped: (id, owner, reason, now = Date.now()) => void skipped.run(reason, now, now, id, owner),
    recordUncertain: (id, owner, reason, now = Date.now()) => void handedOver.run(reason, now, now, id, owner),
    recordRetry: (id, owner, error, at, now = Date.now()) => void retry.run(1, error, at, now, id, owner),
    release: (id, owner, error, at, now = Date.now()) => void retry.run(0, error, at, now, id, owner),
    markUncertain: (now = Date.now()) => Number(uncertain.run(now, now, null).changes),
    markUncertainOf: (owner, now = Date.now()) => Number(uncertain.run(now, -1, owner).changes),
    requeueUncertain(filter, now = Date.now()) {
      const { sql, values } = where({ ...filter, state: "uncertain" });
      const result = db
        .prepare(`update mail_outbox set state = 'queued', next_attempt_at = ?, updated_at = ? ${sql}`)
        .run(now, now, ...values);
      return Number(result.changes);
    },
    counts(filter) {
      const { sql, values } = where(filter);
      const found = db.prepare(`select state, count(*) as n from mail_outbox ${sql} group by state`).all(...values) as {
        state: OutboxState;
        n: number;
      }[];
      const counts = Object.fromEntries(OUTBOX_STATES.map((state) => [state, 0])) as Record<OutboxState, number>;
      for (const { state, n } of found) counts[state] = n;
      return counts;
    },
    rows(filter) {
      const { sql, values } = where(filter);
      return (db.prepare(`select * from mail_outbox ${sql} order by id`).all(...values) as unknown as RawRow[]).map(
        toRow,
      );
    },
    sentSince: (kind, since) => (countSentSince.get(kind, since) as { n: number }).n,
    queuedSince: (kind, since, field, value) => (countQueuedSince[field].get(kind, value, since) as { n: number }).n,
    releaseToBack: (id, owner, error, now = Date.now()) => void toBack.run(error, now, id, owner),
    dropExpired: (kind, queuedBefore, reason, limit, now = Date.now()) =>
      Number(expire.run(reason, now, kind, queuedBefore, limit).changes),
    nextDue(kinds) {
      if (kinds.length === 0) return null;
      const marks = kinds.map(() => "?").join(", ");
      const row = db
        .prepare(`select min(next_attempt_at) as due from mail_outbox where state = 'queued' and kind in (${marks})`)
        .get(...kinds) as { due: number | null };
      return row.due;
    },
    // The address goes from every row (each keeps a placeholder of its own, so the per-send unique index holds);
    // a row not yet sent is skipped, never mailed; a send's record keeps its counts.
    removeRecipient: (email) => removeRecipient(db, email),
    noteRefusal: (email, reason) => noteRefusal(db, email, reason),
    close: () => db.close(),
  };
  return outbox;
}
