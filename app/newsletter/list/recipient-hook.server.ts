// The engine's recipient hook over the list (app/mail/recipient.server.ts): a recipient the relay refused is
// suppressed as bounced with its words, a mail given up after 72 hours of 4xx is a soft bounce, a mail handed over
// resets the count. Handed to the engine by the composition root and by the update command.
import type { RecipientHook } from "~/mail/recipient.server";
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";

export function recipientHook(list: Pick<SubscriberList, "suppress" | "softBounce" | "delivered">): RecipientHook {
  return async (row, event) => {
    if (event.kind === "refused") return list.suppress(row.recipient, "bounced", event.reason, new Date());
    if (event.kind === "gave-up") return list.softBounce(row.recipient, event.reason, new Date());
    return list.delivered(row.recipient);
  };
}
