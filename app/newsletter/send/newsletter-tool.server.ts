// What `npm run newsletter` (scripts/newsletter.mjs) takes from the server build: one build, so the command sends
// through the very outbox, transport and store the server uses.
import { CommandError, sendUpdate } from "~/newsletter/send/send-command.server";
import { updatesStatus } from "~/newsletter/send/status-command.server";

export const newsletterTool = { send: sendUpdate, status: updatesStatus, CommandError };
