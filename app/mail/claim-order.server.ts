/**
 * Which due rows a claim takes, in what order: by each row's place in line (`claim_key`), then by id. An update mail's
 * place is when it is due; a confirmation mail's is pushed back by how many its network already asked for in the hour
 * (app/newsletter/sign-up/fair-confirmations.server.ts), so a real reader's one confirmation is among the next taken
 * however long another network's backlog is. A retry's place is never before its next attempt, so the rows whose
 * place has come are all due: a claim reads one index range from its start (mail_outbox_line), never the whole queue.
 */
import type { SQLInputValue } from "node:sqlite";
import type { MailKind } from "~/mail/outbox-table.server";

export interface ClaimQuery {
  kinds: readonly MailKind[];
  ref?: string;
  limit: number;
  now: number;
}

/** A `select id …` of the rows to claim, and its values (every value bound). */
export function claimOrder({ kinds, ref, limit, now }: ClaimQuery): { sql: string; values: SQLInputValue[] } {
  const marks = kinds.map(() => "?").join(", ");
  const sql =
    // Named, so the planner never takes the due index and sorts every due row instead.
    `select id from mail_outbox indexed by mail_outbox_line where kind in (${marks}) and state = 'queued' and next_attempt_at <= ?` +
    (ref === undefined ? "" : " and ref = ?") +
    " order by claim_key, id limit ?";
  return { sql, values: [...kinds, now, ...(ref === undefined ? [] : [ref]), limit] };
}
