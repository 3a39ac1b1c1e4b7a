import { parseWithZod } from "@conform-to/zod";
import type { AppLoadContext } from "@remix-run/node";
import type { ToastView } from "~/utils/toast-view";
import { clientAddressOf, logClient } from "~/utils/client-address.server";
import { maskEmail } from "~/utils/mask-email.server";
import {
  ALREADY_SUBSCRIBED_TOAST,
  EMAIL_INVALID_MESSAGE,
  EMAIL_MAX_LENGTH,
  EMAIL_TOO_LONG_MESSAGE,
  invalidEmailToast,
  SOMETHING_WENT_WRONG_TOAST,
  subscribedToast,
} from "~/newsletter/sign-up/messages";
import { NEWSLETTER_FORM_ID } from "~/newsletter/sign-up/form-names";
import { HONEYPOT_FIELD, subscribeSchema } from "~/newsletter/sign-up/schema.server";
import { warnThrottled } from "~/utils/log.server";
import { readForm } from "~/utils/read-form.server";
import { subscribeRateLimiter } from "~/newsletter/rate-limit.server";
import type { SubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { consentPageOf } from "~/newsletter/sign-up/consent.server";
import { signUp } from "~/newsletter/sign-up/sign-up.server";
import type { VisitorServices } from "~/newsletter/visitor-services.server";
import type { FormReply } from "~/utils/toast.server";

/** What the dialog needs to know of a sign-up: "subscribed" closes it, anything else keeps it open. */
export type NewsletterOutcome = SubscribeOutcome | "invalid";

// "Subscribed" says whether a mail to confirm is on its way (mail on), or the sign-up counts at once (mail off).
const outcomeToast = (outcome: SubscribeOutcome, confirmsByMail: boolean): ToastView =>
  outcome === "subscribed"
    ? subscribedToast(confirmsByMail)
    : outcome === "duplicate"
      ? ALREADY_SUBSCRIBED_TOAST
      : SOMETHING_WENT_WRONG_TOAST;

/** How the route answers a sign-up post: a refusal without a page, or the redirect home with this flash. */
export type SignUpAnswer =
  | { kind: "refused"; status: 413 | 400; text: string }
  | { kind: "flash"; toast: ToastView; formReply?: FormReply<NewsletterOutcome> };

/**
 * The newsletter form's action, up to the answer the route sends. Every outcome, even a rejected address, is a flash
 * for the redirect to "/" (post/redirect/get): a visitor without JavaScript sees the toast after the reload, and with
 * JavaScript Remix follows the redirect and revalidates the root loader, which reads the same flash.
 */
export async function subscribeAction(
  request: Request,
  context: AppLoadContext,
  running: VisitorServices,
): Promise<SignUpAnswer> {
  try {
    const decision = await decide(request, clientAddressOf(context), running);
    if (decision === "far-too-large") return { kind: "refused", status: 413, text: "Payload Too Large" };
    // Nobody is left to read an answer: a short one, for the log's sake.
    if (decision === "cut-off") return { kind: "refused", status: 400, text: "Bad Request" };
    return { kind: "flash", ...decision };
  } catch (error) {
    // A visitor always gets a page: an unexpected error is logged and shown as the generic failure.
    console.error("Newsletter: the sign-up failed unexpectedly:", error);
    return { kind: "flash", toast: SOMETHING_WENT_WRONG_TOAST };
  }
}

interface Decision {
  toast: ToastView;
  formReply: FormReply<NewsletterOutcome>;
}

const reply = (outcome: NewsletterOutcome, result: FormReply["reply"]): FormReply<NewsletterOutcome> => ({
  form: NEWSLETTER_FORM_ID,
  outcome,
  reply: result,
});

/** An address rejected before Conform saw it (a body too large or not a form): the field's error, no value kept. */
const rejected = (message: string): Decision => ({
  toast: invalidEmailToast(message),
  formReply: reply("invalid", { status: "error", error: { email: [message] } }),
});

async function decide(
  request: Request,
  client: string,
  running: VisitorServices,
): Promise<Decision | "far-too-large" | "cut-off"> {
  const read = await readForm(request);
  switch (read.kind) {
    case "far-too-large":
      warnThrottled(`Newsletter: refused an oversized post from ${logClient(client)}.`, "oversized sign-up");
      return "far-too-large";
    case "cut-off":
      // A client that hangs up mid-post is ordinary on the internet: one short line at most, never a stack.
      warnThrottled(
        `Newsletter: a sign-up post was cut off by ${logClient(client)}; nothing stored.`,
        "cut-off sign-up",
      );
      return "cut-off";
    case "too-large":
      // Only the address can be long in this form, so an oversized body is an address that is too long.
      return rejected(EMAIL_TOO_LONG_MESSAGE);
    case "not-a-form":
      return rejected(EMAIL_INVALID_MESSAGE);
  }
  const { form } = read;

  const honeypot = form.get(HONEYPOT_FIELD);
  if (honeypot !== null && honeypot !== "") {
    // A bot filled in the hidden field: it is told it succeeded, so it has nothing to learn, and nothing is stored.
    warnThrottled(`Newsletter: honeypot filled by ${logClient(client)}; nothing stored.`, "honeypot");
    return { toast: subscribedToast(running.confirmationOn), formReply: reply("subscribed", { initialValue: null }) };
  }

  // Only the address is parsed, so only it can come back in Conform's reply: the reply travels in a cookie, and junk
  // fields echoed there could push it past what browsers and proxies accept (4 KB).
  const submission = parseWithZod(onlyEmail(form), { schema: subscribeSchema });
  // An address longer than any valid one is not sent back either (the browser's maxlength stops people long before;
  // only a hand-made post gets here).
  const hideFields = String(form.get("email") ?? "").length > EMAIL_MAX_LENGTH ? ["email"] : [];

  if (!subscribeRateLimiter.hit(client)) {
    warnThrottled(`Newsletter: rate limit reached by ${logClient(client)}; nothing stored.`, "sign-up rate limit");
    return { toast: SOMETHING_WENT_WRONG_TOAST, formReply: reply("failed", submission.reply({ hideFields })) };
  }

  if (submission.status !== "success") {
    const firstIssue = submission.error?.email?.[0] ?? EMAIL_INVALID_MESSAGE;
    return { toast: invalidEmailToast(firstIssue), formReply: reply("invalid", submission.reply({ hideFields })) };
  }

  const page = consentPageOf(request.headers.get("referer"), request.url);
  const outcome = await signUp(running, submission.value.email, page, client);
  if (outcome === "duplicate") console.info(`Newsletter: ${maskEmail(submission.value.email)} is already subscribed.`);
  // On success the form starts empty again (Conform resets it); otherwise the address stays for another try.
  const result = outcome === "subscribed" ? submission.reply({ resetForm: true }) : submission.reply();
  return { toast: outcomeToast(outcome, running.confirmationOn), formReply: reply(outcome, result) };
}

/** The form reduced to its one field (a repeated field keeps its first value, as Conform would read it). */
function onlyEmail(form: FormData): FormData {
  const kept = new FormData();
  const email = form.get("email");
  if (email !== null) kept.set("email", email);
  return kept;
}
