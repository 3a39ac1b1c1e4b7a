// What `npm run newsletter` (scripts/newsletter.mjs) takes from the server build: one build and one composition, so
// the command sends through the same kind of outbox, transport and list the server uses, read from the same settings.
import { CommandError, type SendOptions, sendUpdate } from "~/newsletter/send/send-command.server";
import { updatesStatus } from "~/newsletter/send/status-command.server";
import type { SendServices } from "~/newsletter/send/update-to-send.server";
import { runDomainCheck } from "~/mail/domain-check/check.server";

export function newsletterCommands(services: () => SendServices) {
  return {
    send: (name: string, options: Omit<SendOptions, "services">) =>
      sendUpdate(name, { ...options, services: services() }),
    // A send's line is its own record (the outbox's rows and their outcomes): the list is not read.
    status: async () => updatesStatus(services()),
    check: () => runDomainCheck({ env: services().settings, out: process.stdout }),
    CommandError,
  };
}
