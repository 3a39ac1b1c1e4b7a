// What `npm run newsletter` (scripts/newsletter.mjs) takes from the server build: one build, so the command sends
// through the very outbox, transport and list the server uses. The build's entry hands it the services.
import { CommandError, type SendOptions, sendUpdate } from "~/newsletter/send/send-command.server";
import { updatesStatus } from "~/newsletter/send/status-command.server";
import { type ListSource, listToRead } from "~/newsletter/send/update-to-send.server";
import { runDomainCheck } from "~/mail/domain-check/check.server";
import { env } from "~/utils/env.server";

export function newsletterCommands(lists: () => ListSource) {
  return {
    send: (name: string, options: Omit<SendOptions, "lists">) => sendUpdate(name, { ...options, lists: lists() }),
    // Each send's line also counts its readers suppressed since (bounced, complained), where the list can be read.
    status: async () => {
      try {
        return updatesStatus(await listToRead(lists(), env).suppressedAddresses());
      } catch (error) {
        return updatesStatus(null, error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error));
      }
    },
    check: () => runDomainCheck({ env, out: process.stdout }),
    CommandError,
  };
}
