/**
 * The welcome's place in the mail engine: when the owner's welcome file exists, confirming queues one 'welcome' row
 * for the reader (ref 'welcome': the outbox's unique (kind, ref, recipient) makes it once per address however often
 * it is queued), and this composer turns it into the mail. Like an update, the list is asked first (isReader), so a
 * reader who left or was suppressed since gets nothing; a welcome file removed since is the owner's "do not send".
 */
import { existsSync } from "node:fs";
import type { Composer } from "~/mail/drain.server";
import type { NewMail, Outbox, OutboxRow } from "~/mail/outbox.server";
import type { Runner } from "~/mail/runner.server";
import { unsubscribeLink } from "~/newsletter/list/unsubscribe-token";
import type { Reader, SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { mailSite, SKIP_UNSUBSCRIBED, tokenOfRow } from "~/newsletter/send/update-composer.server";
import { composeWelcomeMail } from "~/newsletter/welcome/welcome-mail.server";
import { readWelcomeFile } from "~/newsletter/welcome/welcome-file.server";
import { describeCause } from "~/utils/log.server";
import { maskEmail } from "~/utils/mask-email.server";
import { siteUrl } from "~/utils/site-url.server";

export const WELCOME_REF = "welcome";

/** The outbox row of a reader's welcome: the token only (the address is the row's recipient). */
export const welcomeRow = (reader: Reader): NewMail => ({
  kind: "welcome",
  recipient: reader.email,
  ref: WELCOME_REF,
  payload: { token: reader.token },
});

/** The composer of 'welcome' rows, reading the welcome file at each mail (a fix needs no restart). */
export function welcomeComposer(from: string, list: Pick<SubscriberList, "isReader">, file: string): Composer {
  const site = mailSite(from);
  return async (row: OutboxRow) => {
    const token = tokenOfRow(row);
    if (!token) return { skip: "the outbox row names no reader's token" };
    const welcome = readWelcomeFile(file);
    if (!welcome) return { skip: "the welcome file was removed" };
    if (!(await list.isReader(token))) return { skip: SKIP_UNSUBSCRIBED };
    const reader = { email: row.recipient, unsubscribeUrl: unsubscribeLink(siteUrl(), token) };
    return { message: composeWelcomeMail(welcome, reader, site) };
  };
}

/**
 * What confirming calls with the reader (SubscriberList.confirm's onConfirmed, in the step that confirms them): queue
 * the welcome when the owner has one, and wake the runner. Never throws: a welcome that cannot be queued costs a log
 * line, not the reader's confirmation.
 */
export function welcomeQueue(outbox: Outbox, runner: Pick<Runner, "wake">, file: string): (reader: Reader) => void {
  return (reader) => {
    if (!existsSync(file)) return;
    try {
      if (outbox.enqueue(welcomeRow(reader)) !== null) runner.wake();
    } catch (error) {
      console.error(`Mail: the welcome to ${maskEmail(reader.email)} could not be queued: ${describeCause(error)}`);
    }
  };
}
