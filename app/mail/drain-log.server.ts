// The engine's log lines (drain.server.ts): one per failed attempt and one while the hourly cap holds mails back, each
// kind of trouble rate-limited, the address masked, never a secret.
import type { MailKind, Outbox, OutboxRow } from "~/mail/outbox.server";
import { maskEmail } from "~/utils/mask-email.server";
import { warnThrottled } from "~/utils/log.server";

/** One line per failed attempt, identical kinds of trouble rate-limited; the address masked, never a secret. */
export function logAttempt(row: OutboxRow, verdict: string, reason: string) {
  const what =
    verdict === "retry"
      ? "will be retried"
      : verdict === "failed"
        ? "failed"
        : verdict === "uncertain"
          ? "may have arrived (uncertain, not sent again)"
          : "stopped the sending";
  warnThrottled(
    `Mail: the ${row.kind} mail to ${maskEmail(row.recipient)} ${what} (attempt ${row.attempts + 1}): ${reason}`,
    `mail ${row.kind} ${verdict}`,
  );
}

/** One line (throttled) while the hourly cap holds mails back: how many wait, and how many went in the hour. */
export function logCapped(outbox: Outbox, kind: MailKind, cap: number, sentInHour: number) {
  const waiting = outbox.counts({ kind }).queued;
  warnThrottled(
    `Mail: the hourly cap holds ${waiting} ${kind} mail(s) back: ${sentInHour} sent in the last hour, at most ${cap} ` +
      "(MAIL_MAX_PER_HOUR).",
    `mail ${kind} hourly cap`,
  );
}
