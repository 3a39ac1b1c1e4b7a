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
    // With the embedded list, each send's line also counts its readers suppressed since (bounced, complained).
    status: () => updatesStatus(lists().usesSupabase ? null : lists().list()),
    check: () => runDomainCheck({ env, out: process.stdout }),
    CommandError,
  };
}
