// The engine's recipient hook over the list (app/mail/recipient.server.ts): a recipient the relay refused is
// suppressed as bounced with its words, a mail given up after 72 hours of 4xx is a soft bounce, a mail handed over
// resets the count. Handed to the engine by the composition root and by the update command.
import type { Outbox } from "~/mail/outbox.server";
import type { RecipientHook } from "~/mail/recipient.server";
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";

export function recipientHook(
  list: Pick<SubscriberList, "suppress" | "softBounce" | "delivered">,
  outbox?: Pick<Outbox, "noteRefusal">,
): RecipientHook {
  return async (row, event) => {
    if (event.kind === "refused") {
      // The send's own record of the refusal first: status counts it from there, whatever the list says later.
      outbox?.noteRefusal(row.recipient, "bounced");
      return list.suppress(row.recipient, "bounced", event.reason, new Date());
    }
    if (event.kind === "gave-up") return list.softBounce(row.recipient, event.reason, new Date());
    return list.delivered(row.recipient);
  };
}
