// What `npm run newsletter` (scripts/newsletter.mjs) takes from the server build: one build, so the command sends
// through the very outbox, transport and list the server uses. The build's entry hands it the services.
import { CommandError, type SendOptions, sendUpdate } from "~/newsletter/send/send-command.server";
import { updatesStatus } from "~/newsletter/send/status-command.server";
import type { ListSource } from "~/newsletter/send/update-to-send.server";
import { runDomainCheck } from "~/mail/domain-check/check.server";
import { env } from "~/utils/env.server";

export function newsletterCommands(lists: () => ListSource) {
  return {
    send: (name: string, options: Omit<SendOptions, "lists">) => sendUpdate(name, { ...options, lists: lists() }),
    // A send's line is its own record (the outbox's rows and their outcomes): the list is not read.
    status: async () => updatesStatus(),
    check: () => runDomainCheck({ env, out: process.stdout }),
    CommandError,
  };
}
