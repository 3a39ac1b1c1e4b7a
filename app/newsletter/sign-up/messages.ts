// The toast texts of the newsletter sign-up, character for character as the spec has them. This module imports
// nothing but a type, so the browser bundle can use the same texts (the offline fallback) without pulling in zod.
import type { ToastView } from "~/utils/toast-view";

export { EMAIL_MAX_LENGTH } from "~/newsletter/sign-up/email-length";

export const EMAIL_INVALID_MESSAGE = "Please enter a valid email address";
export const EMAIL_TOO_LONG_MESSAGE = "Email is too long";

export const SUBSCRIBED_TOAST: Required<ToastView> = {
  type: "success",
  message: "Successfully subscribed!",
  description: "Thanks for joining! You'll get updates on my 365-day challenge.",
};

export const ALREADY_SUBSCRIBED_TOAST: Required<ToastView> = {
  type: "info",
  message: "Already subscribed",
  description: "This email is already subscribed to our newsletter.",
};

export const SOMETHING_WENT_WRONG_TOAST: Required<ToastView> = {
  type: "error",
  message: "Something went wrong",
  description: "Please try again later.",
};

export const INVALID_EMAIL_TITLE = "Invalid email";

/** The destructive toast for a rejected address: the title is fixed, the description is the first issue's message. */
export function invalidEmailToast(firstIssueMessage: string): Required<ToastView> {
  return { type: "error", message: INVALID_EMAIL_TITLE, description: firstIssueMessage };
}
