/**
 * Which due rows a claim takes, in what order. Update mails: oldest due first. Confirmation mails, which carry a
 * pseudonym of the visitor who asked for them (payload `visitor`), go in turns: a visitor's turn number is how many of
 * their mails the outbox took in the last hour plus the row's place in their own queue, so a real reader's one
 * confirmation is among the next taken however long another visitor's backlog is. A row with no visitor (queued before
 * the fair limits) is a visitor of its own.
 */
import type { SQLInputValue } from "node:sqlite";
import type { MailKind } from "~/mail/outbox-table.server";

const FAIR_KINDS: ReadonlySet<MailKind> = new Set(["confirm"]);
/** How far back a visitor's taken mails push their next ones back. */
export const FAIR_MEMORY_MS = 60 * 60_000;

export interface ClaimQuery {
  kinds: readonly MailKind[];
  ref?: string;
  limit: number;
  now: number;
}

/** A `select id …` of the rows to claim, and its values (every value bound). */
export function claimOrder({ kinds, ref, limit, now }: ClaimQuery): { sql: string; values: SQLInputValue[] } {
  const marks = kinds.map(() => "?").join(", ");
  const due =
    `from mail_outbox where state = 'queued' and kind in (${marks}) and next_attempt_at <= ?` +
    (ref === undefined ? "" : " and ref = ?");
  const dueValues = [...kinds, now, ...(ref === undefined ? [] : [ref])];
  if (!kinds.every((kind) => FAIR_KINDS.has(kind))) {
    return { sql: `select id ${due} order by next_attempt_at, id limit ?`, values: [...dueValues, limit] };
  }
  const sql =
    "select d.id from (select id, next_attempt_at, visitor, " +
    "row_number() over (partition by visitor order by next_attempt_at, id) as turn from (" +
    `select id, next_attempt_at, coalesce(json_extract(payload, '$.visitor'), 'row ' || id) as visitor ${due})) d ` +
    "left join (select json_extract(payload, '$.visitor') as visitor, count(*) as n from mail_outbox " +
    `where kind in (${marks}) and state <> 'queued' and created_at > ? group by 1) t on t.visitor = d.visitor ` +
    "order by d.turn + coalesce(t.n, 0), d.next_attempt_at, d.id limit ?";
  return { sql, values: [...dueValues, ...kinds, now - FAIR_MEMORY_MS, limit] };
}
