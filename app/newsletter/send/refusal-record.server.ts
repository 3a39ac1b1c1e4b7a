// A relay's later verdict (a webhook's bounce or complaint) written into the record of each send that mailed the
// reader, beside the list's suppression: status counts a finished send's refusals from its own rows, so lifting the
// suppression or removing the reader later leaves the send's line as it was.
import type { Outbox } from "~/mail/outbox.server";
import type { SuppressionSink } from "~/newsletter/webhooks/sink.server";

/**
 * The list as the webhooks' sink, with each refusal also noted in the sends' record: the outbox, when one exists (no
 * send and no confirmation mail yet: nothing to note in).
 */
export function sinkNotingRefusals(list: SuppressionSink, outbox: () => Outbox | null): SuppressionSink {
  return {
    async suppress(email, reason, detail, at) {
      const outcome = await list.suppress(email, reason, detail, at);
      if (reason !== "unsubscribed") outbox()?.noteRefusal(email, reason);
      return outcome;
    },
    async softBounce(email, detail, at) {
      const outcome = await list.softBounce(email, detail, at);
      if (outcome === "suppressed") outbox()?.noteRefusal(email, "bounced");
      return outcome;
    },
  };
}
