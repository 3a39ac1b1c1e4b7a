/**
 * What one attempt's verdict means for its recipient, apart from the outbox (pure, but for the hook's call): a 5xx to
 * RCPT or DATA about the reader's mailbox is the address refused for good; a 4xx still coming 72 hours after the mail
 * was queued is given up and counts as a soft bounce, unless the answer names the relay (a relay busy for days is
 * nobody's mailbox); a mail handed over resets the reader's soft bounces. A refusal with no enhanced code may be the
 * relay's as well: the engine's breaker (breaker.server.ts) holds its event until repetition tells. The engine knows no list: the
 * composition root hands in `onRecipient`, which suppresses or counts (app/newsletter/list/recipient-hook.server.ts).
 */
import type { SmtpVerdict } from "~/mail/classify.server";
import type { OutboxRow } from "~/mail/outbox-table.server";
import { describeCause } from "~/utils/log.server";
import { maskEmail } from "~/utils/mask-email.server";

/** After this long in 4xx retries, a mail is given up (the row failed) and the reader gets a soft bounce. */
export const GIVE_UP_AFTER_MS = 72 * 60 * 60_000;

export type RecipientEvent =
  { kind: "refused"; reason: string } | { kind: "gave-up"; reason: string } | { kind: "delivered" };

/** Told what became of each recipient; may write to the list. Its failure is logged, never the engine's. */
export type RecipientHook = (row: OutboxRow, event: RecipientEvent) => Promise<unknown> | unknown;

/**
 * The verdict as the outbox records it, and what the recipient's hook is told. The 72 hours count from the row's
 * creation: a mail is first tried as soon as it is queued, unless an hourly cap holds it back.
 */
export function recipientVerdict(
  verdict: SmtpVerdict,
  row: Pick<OutboxRow, "createdAt">,
  now: number,
): { verdict: SmtpVerdict; event: RecipientEvent | null } {
  if (verdict.kind === "failed" && verdict.recipient) {
    if (verdict.fault === "relay") return { verdict, event: null };
    return { verdict, event: { kind: "refused", reason: verdict.reason } };
  }
  if (
    verdict.kind === "retry" &&
    verdict.relayAnswered &&
    verdict.fault !== "relay" &&
    now - row.createdAt >= GIVE_UP_AFTER_MS
  ) {
    const reason = `${verdict.reason} (gave up after 72 hours)`;
    const failed: SmtpVerdict = {
      kind: "failed",
      reason,
      ...(verdict.fault ? { fault: verdict.fault } : {}),
      ...(verdict.answer ? { answer: verdict.answer } : {}),
    };
    return { verdict: failed, event: { kind: "gave-up", reason: verdict.reason } };
  }
  return { verdict, event: null };
}

/** Calls the hook, if any, so that a list that cannot be written costs a log line, not the send. */
export async function tellRecipientHook(hook: RecipientHook | undefined, row: OutboxRow, event: RecipientEvent | null) {
  if (!hook || !event) return;
  try {
    await hook(row, event);
  } catch (error) {
    console.error(
      `Mail: could not record what became of ${maskEmail(row.recipient)} (${event.kind}) in the list: ` +
        describeCause(error),
    );
  }
}
