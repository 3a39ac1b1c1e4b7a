// The welcome mail, composed for one newly confirmed reader: pure. The one mail layout (kind "welcome") with the
// reader's unsubscribe link in the footer and the same list headers as an update (one-click unsubscribe, List-Id).
import { createHash } from "node:crypto";
import { renderMail } from "~/mail/layout/render-mail.server";
import {
  headerText,
  listId,
  senderDomain,
  type UpdateMail,
  type UpdateMailReader,
  type UpdateMailSite,
} from "~/newsletter/send/update-mail.server";
import { renderUpdateHtml, renderUpdateText } from "~/updates/markdown.server";
import type { Welcome } from "~/newsletter/welcome/welcome-file.server";

/** One Message-ID per reader: a welcome re-sent after an uncertain attempt is recognisably the same mail. */
export function welcomeMessageId(email: string, domain: string): string {
  const digest = createHash("sha256").update(`welcome\n${email.toLowerCase()}`).digest("hex").slice(0, 24);
  return `<welcome.${digest}@${domain}>`;
}

export function composeWelcomeMail(welcome: Welcome, reader: UpdateMailReader, site: UpdateMailSite): UpdateMail {
  const subject = headerText(welcome.subject);
  return {
    to: reader.email,
    subject,
    ...renderMail({
      kind: "welcome",
      ownerName: site.ownerName,
      siteUrl: site.siteUrl,
      title: subject,
      body: { html: renderUpdateHtml(welcome.markdown), text: renderUpdateText(welcome.markdown) },
      pageUrl: new URL("/updates", site.siteUrl).toString(),
      unsubscribeUrl: reader.unsubscribeUrl,
    }),
    messageId: welcomeMessageId(reader.email, senderDomain(site.from, site.siteUrl)),
    ...(site.replyTo ? { replyTo: site.replyTo } : {}),
    headers: {
      "List-Unsubscribe": `<${reader.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": listId(site.ownerName, site.siteUrl),
    },
  };
}
