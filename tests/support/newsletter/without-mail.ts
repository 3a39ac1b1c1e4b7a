// A sign-up through the dialog while mail is off, as the site makes it: confirmed at once, with the dialog's consent.
import type { SignUpRequest } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";

export const withoutMail = (now = Date.now(), page = "/"): SignUpRequest => ({
  state: "confirmed",
  consent: dialogConsent(page),
  now,
});
