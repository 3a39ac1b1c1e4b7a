// The toast texts of the newsletter sign-up, character for character as the spec has them. This module imports
// nothing but a type, so the browser bundle can use the same texts (the offline fallback) without pulling in zod.
import type { ToastView } from "~/utils/toast-view";

export { EMAIL_MAX_LENGTH } from "~/newsletter/sign-up/email-length";

/** A toast the spec words: a title and a text, nothing more. */
type SpecToast = Required<Pick<ToastView, "type" | "message" | "description">>;

export const EMAIL_INVALID_MESSAGE = "Please enter a valid email address";
export const EMAIL_TOO_LONG_MESSAGE = "Email is too long";

export const SUBSCRIBED_TOAST: SpecToast = {
  type: "success",
  message: "Successfully subscribed!",
  description: "Thanks for joining! You'll get updates on my 365-day challenge.",
};

/** Under the success toast when confirmation by mail is on: the reader is only pending until they press Confirm. */
export const CONFIRM_BY_MAIL_NOTE = "One more step: open the mail we just sent you and press Confirm.";

/** The success toast, with the second step said when a confirmation mail is on its way. */
export const subscribedToast = (confirmByMail: boolean): ToastView =>
  confirmByMail ? { ...SUBSCRIBED_TOAST, note: CONFIRM_BY_MAIL_NOTE } : SUBSCRIBED_TOAST;

export const ALREADY_SUBSCRIBED_TOAST: SpecToast = {
  type: "info",
  message: "Already subscribed",
  description: "This email is already subscribed to our newsletter.",
};

export const SOMETHING_WENT_WRONG_TOAST: SpecToast = {
  type: "error",
  message: "Something went wrong",
  description: "Please try again later.",
};

export const INVALID_EMAIL_TITLE = "Invalid email";

/** The destructive toast for a rejected address: the title is fixed, the description is the first issue's message. */
export function invalidEmailToast(firstIssueMessage: string): SpecToast {
  return { type: "error", message: INVALID_EMAIL_TITLE, description: firstIssueMessage };
}
