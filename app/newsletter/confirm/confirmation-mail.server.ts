/**
 * The confirmation mail, in the one mail layout (app/mail/layout): the site's name and the owner's, the link to the
 * confirm page, and the line that ignoring it is enough. No promotion, no images, no tracking. Pure: the token comes
 * in, the message out.
 */
import { CONFIRM_MAIL } from "~/content/mail-copy";
import { renderMail } from "~/mail/layout/render-mail.server";
import type { MailMessage } from "~/mail/transport.server";

export interface ConfirmMailContext {
  ownerName: string;
  siteUrl: string;
}

/** The confirm page's link for a token: a page with a button, never an action on a GET. */
export function confirmLink(siteUrl: string, token: string): string {
  const url = new URL("/confirm", siteUrl);
  url.searchParams.set("token", token);
  return url.toString();
}

export function confirmationMail(to: string, token: string, { ownerName, siteUrl }: ConfirmMailContext): MailMessage {
  const subject = CONFIRM_MAIL.subject(ownerName);
  const confirmUrl = confirmLink(siteUrl, token);
  return { to, subject, ...renderMail({ kind: "confirmation", ownerName, siteUrl, subject, confirmUrl }) };
}
