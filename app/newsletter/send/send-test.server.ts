// `--test <address>` and `--dry-run`: the owner sees the real mail before any reader does. Neither touches the outbox.
import type { MailSettings } from "~/mail/settings.server";
import type { MailTransport } from "~/mail/transport.server";
import { CommandError } from "~/newsletter/send/update-to-send.server";
import { composeUpdateMail } from "~/newsletter/send/update-mail.server";
import { mailSite, mailSource } from "~/newsletter/send/update-composer.server";
import { unsubscribeLink } from "~/newsletter/list/unsubscribe-token";
import type { Update } from "~/updates/updates.server";
import { siteUrl } from "~/utils/site-url.server";

/** A token of the store's form that no reader holds: the test copy's unsubscribe link works and removes nobody. */
const NOBODY = "00000000-0000-4000-8000-000000000000";

// One address, nothing around it: it becomes the To header.
const ONE_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

export async function sendTestCopy(
  update: Update,
  address: string,
  settings: MailSettings,
  transport: () => MailTransport,
  write: (text: string) => void,
): Promise<number> {
  if (!ONE_ADDRESS.test(address) || address.length > 255) {
    throw new CommandError(`--test needs one address, such as you@example.com (got ${JSON.stringify(address)}).`);
  }
  if (settings.mode.kind === "off") {
    throw new CommandError("Mail is off: set SMTP_URL (a relay, or file:///folder to capture) to send a test copy.");
  }
  const mail = composeUpdateMail(
    mailSource(update),
    { email: address, unsubscribeUrl: unsubscribeLink(siteUrl(), NOBODY) },
    mailSite(settings.from),
    { test: true },
  );
  try {
    const answer = await transport().send(mail);
    write(`Test copy of ${update.name} sent to ${address} (${answer}). Nothing was recorded.\n`);
    return 0;
  } catch (error) {
    throw new CommandError(`The test copy was not sent: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
}

/** `--dry-run`: how many readers, the subject and the text part (with a sample reader's link), nothing sent. */
export function previewText(update: Update, recipients: number, from: string): string {
  const mail = composeUpdateMail(
    mailSource(update),
    { email: "reader@example.com", unsubscribeUrl: unsubscribeLink(siteUrl(), NOBODY) },
    mailSite(from),
  );
  return [
    `Dry run: nothing is sent.`,
    `Recipients: ${recipients}`,
    `From: ${from}`,
    `Subject: ${mail.subject}`,
    "",
    mail.text,
  ].join("\n");
}
