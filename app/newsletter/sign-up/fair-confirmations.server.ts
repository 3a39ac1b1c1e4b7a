/**
 * The fair limits on confirmation mails (confirmation-limits.ts), counted from the outbox's own rows: each confirmation
 * row keeps its mailbox key and pseudonyms of the visitor who asked and of their network, and the rows of the last
 * day are what is counted (each count one index range), so a restart (or a second server on the same DATA_DIR) starts from the same counts.
 *
 * A sign-up over a limit is answered as the spec says, but nothing new is stored and no mail is queued (the list is
 * told `mayMail: false`): no pending row is left to block that address's own sign-up later, so a real reader who
 * shares an address with a flooder (a NAT, an office) gets their first mail when they try again after the window.
 */
import { createHash } from "node:crypto";
import type { Outbox } from "~/mail/outbox.server";
import {
  CONFIRMATION_LIMITS,
  type ConfirmationLimits,
  type ConfirmationRoom,
  confirmationRoom,
} from "~/newsletter/sign-up/confirmation-limits";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { networkKey } from "~/newsletter/sign-up/network-key";
import { logClient } from "~/utils/client-address.server";
import { warnThrottled } from "~/utils/log.server";
import { maskEmail } from "~/utils/mask-email.server";

export interface ConfirmationGate {
  /** Whether a confirmation mail to `email`, asked for by `client` (a visitor key), fits the limits now. */
  room(email: string, client: string, now?: number): ConfirmationRoom;
  /** Queues the mail when it still fits (another sign-up may have come between); whether it was queued. */
  queue(email: string, client: string, now?: number): boolean;
  /** Says, in one throttled line, that a sign-up's mail was held back by `room`. */
  logHeld(email: string, client: string, room: ConfirmationRoom): void;
}

/**
 * The visitor as the outbox keeps it: a digest, not the address (the outbox outlives the hour the limit needs). An
 * unknown visitor (a server without the client address) is not limited: one shared key would limit everybody.
 */
export const visitorPseudonym = (client: string): string | null =>
  client === "unknown" ? null : createHash("sha256").update(`visitor:${client}`).digest("hex").slice(0, 24);

/** The visitor's network (network-key.ts) as the outbox keeps it, a digest as well. */
export const networkPseudonym = (client: string): string | null =>
  client === "unknown"
    ? null
    : createHash("sha256")
        .update(`network:${networkKey(client)}`)
        .digest("hex")
        .slice(0, 24);

const hours = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`);

export function confirmationGate(outbox: Outbox, limits: ConfirmationLimits = CONFIRMATION_LIMITS): ConfirmationGate {
  const room = (email: string, client: string, now = Date.now()): ConfirmationRoom => {
    const visitor = visitorPseudonym(client);
    const network = networkPseudonym(client);
    const recent = (field: "visitor" | "network", value: string | null) =>
      value === null ? null : outbox.queuedSince("confirm", now - limits.visitorWindowMs, field, value);
    return confirmationRoom(
      {
        mailbox: outbox.queuedSince("confirm", now - limits.mailboxWindowMs, "mailbox", mailboxKey(email)),
        visitor: recent("visitor", visitor),
        network: recent("network", network),
      },
      limits,
    );
  };
  const gate: ConfirmationGate = {
    room,
    queue(email, client, now = Date.now()) {
      const verdict = room(email, client, now);
      if (!verdict.fits) {
        gate.logHeld(email, client, verdict);
        return false;
      }
      const visitor = visitorPseudonym(client);
      const network = networkPseudonym(client);
      const payload = {
        mailbox: mailboxKey(email),
        ...(visitor === null ? {} : { visitor }),
        ...(network === null ? {} : { network }),
      };
      // Each mail the network asked for in the hour puts this one a step further back in line: a reader from
      // elsewhere goes ahead of a network's backlog, while the network's own mails still go when nobody waits.
      const earlier =
        network === null ? 0 : outbox.queuedSince("confirm", now - limits.visitorWindowMs, "network", network);
      outbox.enqueue(
        { kind: "confirm", recipient: email, payload, placeInLine: now + earlier * limits.placeSpacingMs },
        now,
      );
      return true;
    },
    logHeld(email, client, verdict) {
      if (verdict.fits) return;
      const who =
        verdict.limit === "mailbox"
          ? `the mailbox of ${maskEmail(email)}`
          : verdict.limit === "network"
            ? `the network ${logClient(networkKey(client))}`
            : `visitor ${logClient(client)}`;
      warnThrottled(
        `Newsletter: a confirmation mail for ${maskEmail(email)} is held back (not queued, nothing stored): ` +
          `${who} had ${verdict.count} in ${hours(verdict.windowMs)}, at most ${verdict.max}.`,
        `confirmation held back by the ${verdict.limit} limit`,
      );
    },
  };
  return gate;
}
