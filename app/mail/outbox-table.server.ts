// The outbox table's shape: its schema, a stored row read back, and the filters the owner's commands use.
export type MailKind = "confirm" | "update" | "welcome";
export type OutboxState = "queued" | "sending" | "sent" | "failed" | "skipped" | "uncertain";
export const OUTBOX_STATES: readonly OutboxState[] = ["queued", "sending", "sent", "failed", "skipped", "uncertain"];

export interface OutboxRow {
  id: number;
  kind: MailKind;
  recipient: string;
  ref: string | null;
  payload: Record<string, unknown>;
  state: OutboxState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  sentAt: number | null;
  claimedBy: string | null;
  leaseUntil: number | null;
  claimKey: number;
}

export interface RowFilter {
  kind?: MailKind;
  ref?: string;
  state?: OutboxState;
  recipient?: string;
}

export const TABLE = `
  create table if not exists mail_outbox (
    id integer primary key,
    kind text not null check (kind in ('confirm', 'update', 'welcome')),
    recipient text not null,
    ref text,
    payload text not null default '{}',
    state text not null default 'queued'
      check (state in ('queued', 'sending', 'sent', 'failed', 'skipped', 'uncertain')),
    attempts integer not null default 0,
    next_attempt_at integer not null,
    last_error text,
    created_at integer not null,
    updated_at integer not null,
    sent_at integer,
    claimed_by text,
    lease_until integer,
    claim_key integer
  );
`;

/**
 * Every question the engine asks on its path is one index range, so no claim, count or sweep reads the whole queue:
 * `claim_key` is a row's place in line (claim-order.server.ts), kept at or after its next attempt.
 */
export const INDEXES = `
  create index if not exists mail_outbox_due on mail_outbox (state, next_attempt_at);
  create unique index if not exists mail_outbox_once on mail_outbox (kind, ref, lower(recipient)) where ref is not null;
  create index if not exists mail_outbox_recipient on mail_outbox (lower(recipient));
  create index if not exists mail_outbox_created on mail_outbox (kind, created_at);
  create index if not exists mail_outbox_line on mail_outbox (kind, state, claim_key);
  create index if not exists mail_outbox_kind_due on mail_outbox (kind, state, next_attempt_at);
  create index if not exists mail_outbox_kind_age on mail_outbox (kind, state, created_at);
  create index if not exists mail_outbox_kind_sent on mail_outbox (kind, state, sent_at);
  create index if not exists mail_outbox_mailbox on mail_outbox (kind, json_extract(payload, '$.mailbox'), created_at);
  create index if not exists mail_outbox_visitor on mail_outbox (kind, json_extract(payload, '$.visitor'), created_at);
  create index if not exists mail_outbox_network on mail_outbox (kind, json_extract(payload, '$.network'), created_at);
`;

/** A file made before rows had a place in line: the column, filled with each row's next attempt. */
export const ADD_CLAIM_KEY = `
  alter table mail_outbox add column claim_key integer;
  update mail_outbox set claim_key = next_attempt_at;
`;

/** Whether the table lacks the claim_key column (its schema text, from sqlite_master). */
export const lacksClaimKey = (tableSql: string | undefined): boolean =>
  tableSql !== undefined && !tableSql.includes("claim_key");

export interface RawRow {
  id: number;
  kind: MailKind;
  recipient: string;
  ref: string | null;
  payload: string;
  state: OutboxState;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  claimed_by: string | null;
  lease_until: number | null;
  claim_key: number | null;
}

export const toRow = (raw: RawRow): OutboxRow => ({
  id: raw.id,
  kind: raw.kind,
  recipient: raw.recipient,
  ref: raw.ref,
  payload: JSON.parse(raw.payload) as Record<string, unknown>,
  state: raw.state,
  attempts: raw.attempts,
  nextAttemptAt: raw.next_attempt_at,
  lastError: raw.last_error,
  createdAt: raw.created_at,
  updatedAt: raw.updated_at,
  sentAt: raw.sent_at,
  claimedBy: raw.claimed_by,
  leaseUntil: raw.lease_until,
  claimKey: raw.claim_key ?? raw.next_attempt_at,
});

/** A where clause (and its values) for a filter; every value is bound, never spliced. */
export function where(filter: RowFilter = {}): { sql: string; values: string[] } {
  const parts: [string, string | undefined][] = [
    ["kind = ?", filter.kind],
    ["ref = ?", filter.ref],
    ["state = ?", filter.state],
    ["lower(recipient) = lower(?)", filter.recipient],
  ];
  const used = parts.filter((part): part is [string, string] => part[1] !== undefined);
  const values = used.map(([, value]) => value);
  return { sql: used.length ? `where ${used.map(([clause]) => clause).join(" and ")}` : "", values };
}

/**
 * An outbox file made before the 'welcome' kind has a check that refuses it, and SQLite cannot change a check in
 * place: the table is copied into one of the current shape (rows, ids and states kept), in one transaction.
 */
export const WIDEN_KINDS = `
  alter table mail_outbox rename to mail_outbox_before_welcome;
  drop index if exists mail_outbox_due;
  drop index if exists mail_outbox_once;
  drop index if exists mail_outbox_recipient;
  drop index if exists mail_outbox_created;
  ${TABLE}
  insert into mail_outbox (id, kind, recipient, ref, payload, state, attempts, next_attempt_at, last_error, created_at,
    updated_at, sent_at, claimed_by, lease_until, claim_key)
  select id, kind, recipient, ref, payload, state, attempts, next_attempt_at, last_error, created_at, updated_at,
    sent_at, claimed_by, lease_until, next_attempt_at from mail_outbox_before_welcome;
  drop table mail_outbox_before_welcome;
`;

/** Whether the table's check predates the 'welcome' kind (its schema text, from sqlite_master). */
export const refusesWelcome = (tableSql: string | undefined): boolean =>
  tableSql !== undefined && !tableSql.includes("'welcome'");
