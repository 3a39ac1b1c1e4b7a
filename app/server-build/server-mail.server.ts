// The server's mail, wired once: the runner (built, not started) with its lanes, the fair limits on confirmation
// mails that wake it, and the welcome queue. The owner's commands drain their own sends and take none of this.
import path from "node:path";
import type { Outbox } from "~/mail/outbox.server";
import { createRunner, type Lane, type Runner } from "~/mail/runner.server";
import type { MailSettings } from "~/mail/settings.server";
import type { MailTransport } from "~/mail/transport.server";
import { confirmationComposer } from "~/newsletter/confirm/confirmation-composer.server";
import { PENDING_FOR_MS } from "~/newsletter/list/sqlite/double-opt-in.server";
import { recipientHook } from "~/newsletter/list/recipient-hook.server";
import type { Reader, SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { updateComposer } from "~/newsletter/send/update-composer.server";
import { updateLane } from "~/newsletter/send/update-lane.server";
import { CONFIRMATION_LIMITS } from "~/newsletter/sign-up/confirmation-limits";
import { type ConfirmationGate, confirmationGate } from "~/newsletter/sign-up/fair-confirmations.server";
import { welcomeComposer, welcomeQueue } from "~/newsletter/welcome/welcome-composer.server";
import { readWelcomeFile } from "~/newsletter/welcome/welcome-file.server";
import type { Env } from "~/utils/env.server";

/** Where no runner drains (mail off, or an owner's command): every mail fits, and none is queued. */
export const NO_CONFIRMATIONS: ConfirmationGate = {
  room: () => ({ fits: true }),
  queue: () => false,
  logHeld: () => {},
};

export interface ServerMail {
  readonly runner: (Runner & { start(): void }) | null;
  readonly confirmations: ConfirmationGate;
  readonly welcomeReader: (reader: Reader) => void;
}

export const NO_SERVER_MAIL: ServerMail = Object.freeze({
  runner: null,
  confirmations: NO_CONFIRMATIONS,
  welcomeReader: () => {},
});

export interface ServerMailParts {
  settings: Env;
  mail: MailSettings;
  list: SubscriberList;
  outbox: () => Outbox;
  transport: () => MailTransport;
  confirmationOn: boolean;
  /** Whether the runner goes on with update sends a command left (the embedded list only). */
  resumesUpdates: boolean;
}

/**
 * The runner and what wakes it, or NO_SERVER_MAIL when the server sends nothing. A welcome file that cannot be sent
 * stops start-up as a bad update file does, naming the file and the field; it is read before the outbox is opened.
 */
export function serverMail(parts: ServerMailParts): ServerMail {
  const { settings, mail, list, confirmationOn, resumesUpdates } = parts;
  if (!confirmationOn && !resumesUpdates) return NO_SERVER_MAIL;
  const welcomeFile = path.resolve(settings.WELCOME_FILE);
  readWelcomeFile(welcomeFile);
  const outbox = parts.outbox();
  const lanes: Lane[] = [];
  if (confirmationOn) lanes.push({ kinds: ["confirm"], maxPerHour: { confirm: mail.maxPerHour } });
  if (resumesUpdates) lanes.push(updateLane(outbox, mail, settings.MAIL_RESUME_CHECK_SECONDS * 1000));
  if (confirmationOn) lanes.push({ kinds: ["welcome"] });
  const runner = createRunner({
    outbox,
    transport: parts.transport(),
    composers: {
      confirm: confirmationComposer(list, settings.SESSION_SECRET),
      update: updateComposer(mail.from, list),
      welcome: welcomeComposer(mail.from, list, welcomeFile),
    },
    onRecipient: recipientHook(list, outbox),
    expireAfterMs: { confirm: PENDING_FOR_MS },
    lanes,
  });
  const perVisitor = settings.CONFIRM_MAILS_PER_VISITOR;
  const gate = confirmationGate(outbox, {
    ...CONFIRMATION_LIMITS,
    perVisitor: perVisitor || Infinity,
    // A network holds many visitors: twice a visitor's share, and no limit when visitors have none.
    perNetwork: perVisitor ? Math.max(CONFIRMATION_LIMITS.perNetwork, 2 * perVisitor) : Infinity,
  });
  return Object.freeze({
    runner,
    confirmations: Object.freeze({
      ...gate,
      queue: (email: string, client: string, now?: number) => {
        const queued = gate.queue(email, client, now);
        if (queued) runner.wake();
        return queued;
      },
    }),
    welcomeReader: confirmationOn ? welcomeQueue(outbox, runner, welcomeFile) : () => {},
  });
}
