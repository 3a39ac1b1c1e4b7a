// Where a sign-up is stored: the list, pending with the reader's consent and one confirmation mail queued when
// confirmation is on, confirmed at once with the same consent record when mail is off. The answer never waits for the
// relay. The fair limits (fair-confirmations.server.ts) are asked first: over them, the list stores nothing and no
// mail is queued.
import type { SubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import type { VisitorServices } from "~/newsletter/visitor-services.server";
import { describeCause } from "~/utils/log.server";
import { maskEmail } from "~/utils/mask-email.server";

/** Stores one sign-up made through the dialog on `page` (a path on the site) by `client` (a visitor key). Never throws. */
export async function signUp(
  running: VisitorServices,
  email: string,
  page: string,
  client: string,
): Promise<SubscribeOutcome> {
  const list = running.list();
  const consent = dialogConsent(page);
  if (!running.confirmationOn)
    return (await list.signUp(email, { state: "confirmed", consent, now: Date.now() })).outcome;
  try {
    const now = Date.now();
    const room = running.confirmations.room(email, client, now);
    const result = await list.signUp(email, { state: "pending", consent, now, mayMail: room.fits });
    if (result.held) running.confirmations.logHeld(email, client, room);
    if (result.mail) running.confirmations.queue(email, client, Date.now());
    return result.outcome;
  } catch (error) {
    console.error(`Newsletter: the sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
    return "failed";
  }
}
