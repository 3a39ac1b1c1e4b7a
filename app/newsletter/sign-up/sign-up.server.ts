// Where a sign-up is stored: the list, pending with the reader's consent and one confirmation mail queued when
// confirmation is on, confirmed at once when mail is off. The answer never waits for the relay.
import type { SubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { services } from "~/server-build/services.server";
import { describeCause } from "~/utils/log.server";
import { maskEmail } from "~/utils/mask-email.server";

/** Whether a sign-up waits for the reader's Confirm in a mail (mail on), or counts at once (mail off). */
export const confirmsByMail = (): boolean => services().confirmationOn;

/** Stores one sign-up made through the dialog on `page` (a path on the site). Never throws. */
export async function signUp(email: string, page: string): Promise<SubscribeOutcome> {
  const running = services();
  const list = running.list();
  if (!running.confirmationOn) return (await list.signUp(email)).outcome;
  const result = await list.signUp(email, { state: "pending", consent: dialogConsent(page), now: Date.now() });
  try {
    if (result.mail) running.queueConfirmation(email);
    return result.outcome;
  } catch (error) {
    console.error(`Newsletter: the sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
    return "failed";
  }
}
