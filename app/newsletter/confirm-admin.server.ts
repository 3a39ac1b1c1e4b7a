import { existsSync } from "node:fs";
import { openOutbox } from "~/mail/outbox.server";
import { mailSettings } from "~/newsletter/confirm.server";

/** Erases every outbox row for an address (`remove` erases everything about it); none when there is no outbox. */
export function eraseOutboxRows(email: string): number {
  if (!existsSync(mailSettings.outboxFile)) return 0;
  const outbox = openOutbox(mailSettings.outboxFile);
  try {
    return outbox.removeRecipient(email);
  } finally {
    outbox.close();
  }
}
