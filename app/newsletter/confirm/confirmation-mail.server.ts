/**
 * The confirmation mail: plain text and HTML, the site's name and the owner's, the link to the confirm page, and the
 * line that ignoring it is enough. No promotion, no images, no tracking. Pure: the token comes in, the message out.
 */
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

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function confirmationMail(to: string, token: string, { ownerName, siteUrl }: ConfirmMailContext): MailMessage {
  const site = new URL(siteUrl).host;
  const link = confirmLink(siteUrl, token);
  const subject = `Confirm your subscription to ${ownerName}'s updates`;
  const lines = [
    "Hello,",
    "",
    `Someone, hopefully you, asked to get ${ownerName}'s updates on ${site} at this address.`,
    "To confirm, open this link and press 'Confirm':",
    "",
    link,
    "",
    "The link works for 7 days.",
    "If you did not ask for this, ignoring this mail is enough to stay off the list.",
    "",
    ownerName,
    siteUrl,
  ];
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:16px;line-height:1.5">
<p>Hello,</p>
<p>Someone, hopefully you, asked to get ${escapeHtml(ownerName)}'s updates on ${escapeHtml(site)} at this address.</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:12px 24px;border-radius:9999px;background:#4f46e5;color:#ffffff;font-weight:600;text-decoration:none">Open the page to confirm</a></p>
<p>Or copy this link into your browser: <br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
<p>The link works for 7 days.<br>If you did not ask for this, ignoring this mail is enough to stay off the list.</p>
<p>${escapeHtml(ownerName)}<br><a href="${escapeHtml(siteUrl)}">${escapeHtml(site)}</a></p>
</body></html>
`;
  return { to, subject, text: `${lines.join("\n")}\n`, html };
}
