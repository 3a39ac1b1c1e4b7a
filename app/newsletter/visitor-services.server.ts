/**
 * What the visitors' three actions (sign up, confirm, unsubscribe) use of the running services. The server builds
 * them (app/server-build/composition.server.ts) and each route hands them in, so the newsletter's rooms never reach up
 * for the server's own.
 */
import type { Reader, SubscriberList } from "~/newsletter/list/subscriber-list.server";
import type { ConfirmationGate } from "~/newsletter/sign-up/fair-confirmations.server";

export interface VisitorServices {
  list(): Pick<SubscriberList, "signUp" | "confirm" | "unsubscribe">;
  /** Whether sign-ups wait for a confirmation: mail is on, and the list can hold pending readers. */
  readonly confirmationOn: boolean;
  /** The fair limits on confirmation mails, and the queue they guard. */
  readonly confirmations: ConfirmationGate;
  /** Told of a reader as they confirm: queues the owner's welcome mail when there is one. */
  readonly welcomeReader: (reader: Reader) => void;
}
