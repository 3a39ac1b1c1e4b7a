// `npm run newsletter -- status`: every update and what became of it (scheduled, not sent, sending, sent to N of M,
// when).
import type { Outbox } from "~/mail/outbox.server";
import { SKIP_UNSUBSCRIBED } from "~/newsletter/send/update-composer.server";
import type { SendRecord } from "~/mail/send-log.server";
import { sendCounts } from "~/newsletter/send/send-command.server";
import { formatWait, type RelayWait } from "~/newsletter/send/progress.server";
import { isDue, publicationDay } from "~/updates/publication.server";
import { allUpdates } from "~/updates/updates.server";
import { challengeToday } from "~/utils/today.server";
import type { SendServices } from "~/newsletter/send/update-to-send.server";

type Counts = Omit<ReturnType<typeof sendCounts>, "wait"> & { wait?: RelayWait | null };

/** Of one send's recipients, how many the relay refused (a bounce) or reported as spam, as the send recorded them. */
export interface Refusals {
  bounced: number;
  complained: number;
}

/** One update's line: its name, then its state in words. Pure, for the tests. */
export function statusLine(
  name: string,
  draft: boolean,
  counts: Counts | null,
  record: SendRecord | undefined,
  sendingNow: boolean,
  refusals?: Refusals,
  /** Skip reasons other than leaving the list, with how many rows each (the real reason, not "unsubscribed"). */
  otherSkips: Map<string, number> = new Map(),
  /** Its day, when that has not begun: the site hides it and a send is refused until then. */
  scheduledFor: string | null = null,
): string {
  const when = (at: number) => new Date(at).toISOString().replace(/\.\d+Z$/, "Z");
  let state: string;
  if (!counts || counts.total === 0) {
    if (draft) state = "draft, not sent";
    else state = scheduledFor ? `scheduled for ${scheduledFor} (Europe/Brussels), not sent` : "not sent";
  } else {
    const parts = [`sent to ${counts.sent} of ${counts.total}`];
    const unsubscribed = counts.skipped - [...otherSkips.values()].reduce((a, b) => a + b, 0);
    if (unsubscribed > 0) parts.push(`${unsubscribed} skipped (unsubscribed)`);
    for (const [reason, n] of otherSkips) parts.push(`${n} skipped (${reason})`);
    if (counts.failed) parts.push(`${counts.failed} failed`);
    if (counts.uncertain) parts.push(`${counts.uncertain} uncertain`);
    const open = counts.queued + counts.sending;
    if (sendingNow) parts.unshift("sending");
    else if (open) parts.push(`${open} waiting in the outbox${record?.paused ? " (paused: run send again)" : ""}`);
    if (open && record?.stopped) parts.push(`stopped by the relay: ${record.stopped}`);
    if (counts.wait && !sendingNow) parts.push(formatWait(counts.wait, Date.now()).replace(/, next try in .*$/, ""));
    if (counts.wait) parts.push(`next try ${when(counts.wait.nextAt)}`);
    if (record)
      parts.push(record.finishedAt ? `finished ${when(record.finishedAt)}` : `started ${when(record.startedAt)}`);
    if (refusals && record && !record.refusalsKept) {
      // Sent before each mail's refusal was noted on its row: a 0 here would be a guess, not the send's record.
      parts.push(`${counts.sent} handed to the relay, bounced and complained not recorded (sent by an older version)`);
    } else if (refusals) {
      parts.push(`${counts.sent} handed to the relay, ${refusals.bounced} bounced, ${refusals.complained} complained`);
    }
    state = parts.join(", ");
  }
  return `${name}\t${state}`;
}

/** Each send's refused recipients, by reason, as its own rows recorded them (never today's list). */
function refusalsOf(outbox: Outbox, name: string): Refusals {
  const refusals: Refusals = { bounced: 0, complained: 0 };
  for (const row of outbox.rows({ kind: "update", ref: name })) {
    const reason = row.payload.refusal;
    if (reason === "bounced" || reason === "complained") refusals[reason] += 1;
  }
  return refusals;
}

function otherSkipsOf(outbox: Outbox, name: string): Map<string, number> {
  const reasons = new Map<string, number>();
  for (const row of outbox.rows({ kind: "update", ref: name, state: "skipped" })) {
    if (row.lastError !== SKIP_UNSUBSCRIBED)
      reasons.set(row.lastError ?? "", (reasons.get(row.lastError ?? "") ?? 0) + 1);
  }
  return reasons;
}

/** Confirmation mails the relay keeps waiting, with its latest words: readers who signed up and have no mail yet. */
export function confirmationsWaiting(outbox: Outbox): string | null {
  const queued = outbox.rows({ kind: "confirm", state: "queued" });
  const answered = queued.filter((row) => row.lastError);
  if (answered.length === 0) return null;
  const latest = answered.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));
  return `Confirmation mails: ${queued.length} waiting for the relay, which said: ${latest.lastError}`;
}

/**
 * Every update's line, from the outbox alone: each send's counts, bounced and complained included, are its own rows'
 * recorded outcomes, so a later unsuppress, remove, unsubscribe, import or restore leaves a finished send's line as it was.
 */
export function updatesStatus(services: Pick<SendServices, "existingOutbox">): string {
  const updates = allUpdates();
  if (updates.length === 0) return "No updates yet: write one in the updates folder (docs/newsletter.md).\n";
  const outbox = services.existingOutbox();
  const { today } = challengeToday().days;
  const holder = outbox?.sends.liveHolder() ?? null;
  const records = new Map((outbox?.sends.records() ?? []).map((record) => [record.update, record]));
  const lines = updates.map((update) =>
    statusLine(
      update.name,
      update.draft,
      outbox ? sendCounts(outbox, update.name) : null,
      records.get(update.name),
      holder?.update === update.name,
      outbox ? refusalsOf(outbox, update.name) : undefined,
      outbox ? otherSkipsOf(outbox, update.name) : undefined,
      isDue(update, today) ? null : publicationDay(update),
    ),
  );
  const waiting = outbox ? confirmationsWaiting(outbox) : null;
  if (waiting) lines.push(waiting);
  return `${lines.join("\n")}\n`;
}
