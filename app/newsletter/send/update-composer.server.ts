// The 'update' kind's composer: an outbox row (ref: the update's name, payload: the reader's unsubscribe token) becomes
// the reader's mail. The command and the web server's runner use the same one, so a send the server finishes reads the
// same as one the command sends.
import { owner } from "~/content/site";
import type { Composer } from "~/mail/drain.server";
import { siteUrl } from "~/utils/site-url.server";
import type { OutboxRow } from "~/mail/outbox.server";
import { composeUpdateMail, type UpdateMailSite, type UpdateMailSource } from "~/newsletter/send/update-mail.server";
import { unsubscribeLink } from "~/newsletter/list/unsubscribe-token";
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { readUpdateFiles } from "~/updates/update-files.server";
import { findUpdate, renderUpdateHtml, renderUpdateText, type Update, updatesFolder } from "~/updates/updates.server";
import { env } from "~/utils/env.server";

/** The update as a mail's source: rendered once per update by the site's own renderer. */
export const mailSource = (update: Update): UpdateMailSource => ({
  name: update.name,
  title: update.title,
  ...(update.summary ? { summary: update.summary } : {}),
  html: renderUpdateHtml(update.markdown),
  text: renderUpdateText(update.markdown),
  // The page at the site's address (SITE_URL in a local run), where the mail's other links point too.
  url: new URL(`/updates/${encodeURIComponent(update.name)}`, siteUrl()).toString(),
});

export const mailSite = (from: string, replyTo = env.MAIL_REPLY_TO): UpdateMailSite => ({
  ownerName: owner.name,
  siteUrl: siteUrl(),
  from,
  ...(replyTo ? { replyTo } : {}),
  ...(env.POSTMARK_MESSAGE_STREAM ? { messageStream: env.POSTMARK_MESSAGE_STREAM } : {}),
});

/** The payload an 'update' row carries: the token only (the address is the row's recipient). */
export const updatePayload = (token: string) => ({ token });

export const tokenOfRow = (row: OutboxRow): string | null =>
  typeof row.payload.token === "string" ? row.payload.token : null;

/** Why a queued mail is not sent (the outbox records it as skipped, with these words). */
export const SKIP_UNSUBSCRIBED = "unsubscribed before the mail was sent";

/**
 * A composer over the update files: the list's `isReader(token)` is asked first, at claim time, so a reader who left
 * gets nothing from then on (the row is recorded as skipped). An update taken out of the folder, or made a draft
 * again, after it was queued is the owner's "do not send": its remaining rows are skipped, saying so.
 */
export function updateComposer(from: string, list: Pick<SubscriberList, "isReader">): Composer {
  const sources = new Map<string, UpdateMailSource | string>();
  const site = mailSite(from);
  const sourceFor = (name: string): UpdateMailSource | string => {
    const known = sources.get(name);
    if (known) return known;
    // The site reads the folder once per process in production: a server started before the update was added (a git
    // pull, a docker cp) must look again before it calls the update gone, or it would skip every reader left.
    const listed = findUpdate(name);
    const update = listed && !listed.draft ? listed : readUpdateFiles(updatesFolder()).find((one) => one.name === name);
    const source = !update
      ? `the update ${name} is no longer in the updates folder`
      : update.draft
        ? `the update ${name} was made a draft again`
        : mailSource(update);
    // Only a found update is kept: a missing one is looked for again at the next row.
    if (typeof source !== "string") sources.set(name, source);
    return source;
  };
  return async (row: OutboxRow) => {
    const token = tokenOfRow(row);
    if (!row.ref || !token) return { skip: "the outbox row names no update or no reader's token" };
    const source = sourceFor(row.ref);
    if (typeof source === "string") return { skip: source };
    if (!(await list.isReader(token))) return { skip: SKIP_UNSUBSCRIBED };
    const reader = { email: row.recipient, unsubscribeUrl: unsubscribeLink(siteUrl(), token) };
    return { message: composeUpdateMail(source, reader, site) };
  };
}
