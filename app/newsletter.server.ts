import { parseWithZod } from "@conform-to/zod";
import type { AppLoadContext } from "@remix-run/node";
import type { ToastView } from "~/components/toast";
import { maskEmail } from "~/lib/mask-email";
import {
  ALREADY_SUBSCRIBED_TOAST,
  EMAIL_INVALID_MESSAGE,
  EMAIL_TOO_LONG_MESSAGE,
  HONEYPOT_FIELD,
  invalidEmailToast,
  SOMETHING_WENT_WRONG_TOAST,
  SUBSCRIBED_TOAST,
  subscribeSchema,
} from "~/lib/newsletter";
import { readForm } from "~/lib/read-form.server";
import { subscribeRateLimiter, type RateLimiter } from "~/rate-limit.server";
import { subscriberStore, type SubscribeOutcome, type SubscriberStore } from "~/subscribers.server";
import { redirectWithToast } from "~/toast.server";

const OUTCOME_TOASTS: Record<SubscribeOutcome, ToastView> = {
  subscribed: SUBSCRIBED_TOAST,
  duplicate: ALREADY_SUBSCRIBED_TOAST,
  failed: SOMETHING_WENT_WRONG_TOAST,
};

interface Dependencies {
  store: SubscriberStore;
  limiter: RateLimiter;
}

/** The visitor's address from server.mjs's load context ("unknown" if a different server runs the build). */
export function clientAddressOf(context: AppLoadContext): string {
  const address = (context as { clientAddress?: unknown }).clientAddress;
  return typeof address === "string" && address !== "" ? address : "unknown";
}

/**
 * The newsletter form's action. Every outcome, even a rejected or oversized post, answers with a redirect to "/"
 * carrying the toast (post/redirect/get), so a visitor without JavaScript sees it after the reload, and the
 * enhancement script reads it from the same page.
 */
export async function subscribeAction(
  request: Request,
  context: AppLoadContext,
  { store, limiter }: Dependencies = { store: subscriberStore, limiter: subscribeRateLimiter },
): Promise<Response> {
  try {
    const toast = await decide(request, clientAddressOf(context), store, limiter);
    if (toast === "far-too-large") return new Response("Payload Too Large", { status: 413 });
    return await redirectWithToast("/", toast);
  } catch (error) {
    // A visitor always gets a page: an unexpected error is logged and shown as the generic failure.
    console.error("Newsletter: the sign-up failed unexpectedly:", error);
    return redirectWithToast("/", SOMETHING_WENT_WRONG_TOAST);
  }
}

async function decide(
  request: Request,
  client: string,
  store: SubscriberStore,
  limiter: RateLimiter,
): Promise<ToastView | "far-too-large"> {
  const read = await readForm(request);
  switch (read.kind) {
    case "far-too-large":
      console.warn(`Newsletter: refused an oversized post from ${client}.`);
      return "far-too-large";
    case "too-large":
      // Only the address can be long in this form, so an oversized body is an address that is too long.
      return invalidEmailToast(EMAIL_TOO_LONG_MESSAGE);
    case "not-a-form":
      return invalidEmailToast(EMAIL_INVALID_MESSAGE);
  }
  const { form } = read;

  const honeypot = form.get(HONEYPOT_FIELD);
  if (honeypot !== null && honeypot !== "") {
    // A bot filled in the hidden field: it is told it succeeded, so it has nothing to learn, and nothing is stored.
    console.warn(`Newsletter: honeypot filled by ${client}; nothing stored.`);
    return SUBSCRIBED_TOAST;
  }

  if (!limiter.hit(client)) {
    console.warn(`Newsletter: rate limit reached by ${client}; nothing stored.`);
    return SOMETHING_WENT_WRONG_TOAST;
  }

  const submission = parseWithZod(form, { schema: subscribeSchema });
  if (submission.status !== "success") {
    const firstIssue = submission.error?.email?.[0] ?? EMAIL_INVALID_MESSAGE;
    return invalidEmailToast(firstIssue);
  }

  const outcome = await store.subscribe(submission.value.email);
  if (outcome === "duplicate") console.info(`Newsletter: ${maskEmail(submission.value.email)} is already subscribed.`);
  return OUTCOME_TOASTS[outcome];
}
