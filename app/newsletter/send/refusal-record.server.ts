// A relay's later verdict (a webhook's bounce or complaint) written into the record of each send that mailed the
// reader, beside the list's suppression: status counts a finished send's refusals from its own rows, so lifting the
// suppression or removing the reader later leaves the send's line as it was.
import { existsSync } from "node:fs";
import { openOutbox } from "~/mail/outbox.server";
import type { SuppressionSink } from "~/newsletter/webhooks/sink.server";

function noteInOutbox(outboxFile: string, email: string, reason: "bounced" | "complained") {
  if (!existsSync(outboxFile)) return;
  const outbox = openOutbox(outboxFile);
  try {
    outbox.noteRefusal(email, reason);
  } finally {
    outbox.close();
  }
}

/** The list as the webhooks' sink, with each refusal also noted in the sends' record (the outbox at `outboxFile`). */
export function sinkNotingRefusals(list: SuppressionSink, outboxFile: string): SuppressionSink {
  return {
    async suppress(email, reason, detail, at) {
      const outcome = await list.suppress(email, reason, detail, at);
      if (reason !== "unsubscribed") noteInOutbox(outboxFile, email, reason);
      return outcome;
    },
    async softBounce(email, detail, at) {
      const outcome = await list.softBounce(email, detail, at);
      if (outcome === "suppressed") noteInOutbox(outboxFile, email, "bounced");
      return outcome;
    },
  };
}
