import { createHash } from "node:crypto";
import { oneLine } from "~/mail/layout/mail-text.server";
import { renderMail } from "~/mail/layout/render-mail.server";

// The update mail, composed for one reader: pure, so every header and both parts are unit tested without a relay.
// The result is the mail path's message shape; Nodemailer encodes every field of it itself.

export interface UpdateMailSource {
  /** The update's name (its file name without `.md`): part of the Message-ID, so a re-send keeps the same one. */
  name: string;
  title: string;
  summary?: string;
  /** The update's body, already rendered by the site's one Markdown renderer (safe HTML, no raw HTML from the file). */
  html: string;
  /** The same body as plain text. */
  text: string;
  /** Where the update is on the site. */
  url: string;
}

export interface UpdateMailReader {
  email: string;
  /** The reader's own unsubscribe link (the page that also takes RFC 8058 one-click posts). */
  unsubscribeUrl: string;
}

export interface UpdateMailSite {
  /** The owner's name, as the mail's footer names who sends it. */
  ownerName: string;
  siteUrl: string;
  /** MAIL_FROM, e.g. `Alex <updates@example.com>`: its domain names the Message-ID. */
  from: string;
  /** MAIL_REPLY_TO: where a reader's reply to an update goes (the owner's inbox), when set. */
  replyTo?: string;
  /** POSTMARK_MESSAGE_STREAM: the Postmark stream (a Broadcast one) updates go through over SMTP, when set. */
  messageStream?: string;
}

/** The transport's message shape (app/mail/transport.server.ts): From is the transport's, Date is set when sent. */
export interface UpdateMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
  replyTo?: string;
}

/**
 * Text for a header: one line, spaces collapsed (nothing in a title can start a header of its own), bounded (a subject
 * past ~200 characters is cut by most clients).
 */
export function headerText(value: string, max = 200): string {
  const line = oneLine(value);
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** The domain of an address such as `Name <updates@example.com>`; the site's host when there is none. */
export function senderDomain(from: string, siteUrl: string): string {
  const address = /<([^<>]*)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address.slice(address.lastIndexOf("@") + 1).trim();
  return /^[a-z0-9.-]+$/i.test(domain) && domain.includes(".") ? domain.toLowerCase() : new URL(siteUrl).hostname;
}

/**
 * The same Message-ID for the same (update, reader), on the sender's domain: a mail re-sent after an uncertain
 * attempt carries the ID of the first, so a receiving server or client that saw it can tell it is the same mail.
 */
export function updateMessageId(updateName: string, email: string, domain: string, test = false): string {
  const digest = createHash("sha256").update(`${updateName}\n${email.toLowerCase()}`).digest("hex").slice(0, 24);
  const safeName = updateName.replace(/[^a-z0-9-]/gi, "-").slice(0, 80);
  // A test copy is a different mail from the reader's real one, and two test copies are two mails.
  const suffix = test ? `.test-${Date.now().toString(36)}` : "";
  return `<update.${safeName}.${digest}${suffix}@${domain}>`;
}

/**
 * `List-Id` (RFC 2919): a label under the site's own host, with the owner's name as the description. The description
 * is kept to plain ASCII words: anything else (a quote, an accent) makes Nodemailer encode the whole field, `<…>`
 * included, and the ID is lost to the mail clients that sort by it.
 */
export function listId(ownerName: string, siteUrl: string): string {
  const host = new URL(siteUrl).hostname;
  const words = headerText(ownerName, 60)
    .replace(/[^A-Za-z0-9 .'-]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return words ? `${words} updates <updates.${host}>` : `<updates.${host}>`;
}

/** Both parts of the mail, in the one mail layout (app/mail/layout); a test copy says so first. */
export function updateParts(source: UpdateMailSource, reader: UpdateMailReader, site: UpdateMailSite, test = false) {
  return renderMail({
    kind: test ? "test" : "update",
    ownerName: site.ownerName,
    siteUrl: site.siteUrl,
    title: headerText(source.title, 500),
    body: { html: source.html, text: source.text },
    pageUrl: source.url,
    unsubscribeUrl: reader.unsubscribeUrl,
  });
}

/**
 * One mail for one reader: `To:` that reader alone; the subject is the title on one line (a test copy says so);
 * RFC 8058 one-click unsubscribe headers with the reader's own link, RFC 2919 `List-Id`, a Message-ID on the sender's
 * domain (Nodemailer adds `Date` when it sends).
 */
export function composeUpdateMail(
  source: UpdateMailSource,
  reader: UpdateMailReader,
  site: UpdateMailSite,
  options: { test?: boolean } = {},
): UpdateMail {
  const test = options.test ?? false;
  const subject = headerText(source.title);
  return {
    to: reader.email,
    subject: test ? `[Test] ${subject}` : subject,
    ...updateParts(source, reader, site, test),
    messageId: updateMessageId(source.name, reader.email, senderDomain(site.from, site.siteUrl), test),
    ...(site.replyTo ? { replyTo: site.replyTo } : {}),
    headers: {
      "List-Unsubscribe": `<${reader.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": listId(site.ownerName, site.siteUrl),
      ...(site.messageStream ? { "X-PM-Message-Stream": site.messageStream } : {}),
    },
  };
}
