import { readForm } from "~/utils/read-form.server";
import { clientAddressOf, logClient } from "~/utils/client-address.server";
import type { AppLoadContext } from "@remix-run/node";
import { warnThrottled } from "~/utils/log.server";
import { unsubscribeRateLimiter } from "~/newsletter/rate-limit.server";
import { isConfirmToken } from "~/newsletter/confirm/confirmation-composer.server";
import type { VisitorServices } from "~/newsletter/visitor-services.server";
import { describeCause } from "~/utils/log.server";
import type { ConfirmOutcome } from "~/newsletter/list/subscriber-list.server";

/** What the confirm page says after its button: "expired" also for a wrong or used token (it tells nothing more). */
export type ConfirmResult =
  "confirmed" | "already-confirmed" | "expired" | "incomplete-link" | "too-many-requests" | "failed";

const STATUS: Record<ConfirmResult, number> = {
  confirmed: 200,
  "already-confirmed": 200,
  expired: 410,
  "incomplete-link": 400,
  "too-many-requests": 429,
  failed: 503,
};

/** The token of a confirm link (`/confirm?token=…`), or null when the link has none that could be one. */
export function confirmTokenOf(url: string): string | null {
  const token = new URL(url).searchParams.get("token")?.trim() ?? null;
  return isConfirmToken(token) ? token : null;
}

/** Confirms the reader a token was mailed to: "unknown" for a wrong, used or expired token. Never throws. */
async function confirmSignUp(running: VisitorServices, token: string): Promise<ConfirmOutcome | "failed"> {
  if (!running.confirmationOn) return "unknown";
  try {
    // The owner's welcome, if any, is queued in the step that confirms the reader, once (welcome-composer.server.ts).
    return await running.list().confirm(token, Date.now(), running.welcomeReader);
  } catch (error) {
    console.error(`Newsletter: a confirmation failed: ${describeCause(error)}`);
    return "failed";
  }
}

/** The confirm page's action, the one thing that confirms: its button's plain form post. */
export async function confirmAction(
  request: Request,
  context: AppLoadContext,
  running: VisitorServices,
): Promise<{ result: ConfirmResult; status: number }> {
  const answer = (result: ConfirmResult) => ({ result, status: STATUS[result] });
  const read = await readForm(request);
  const field = read.kind === "form" ? read.form.get("token") : null;
  const token = isConfirmToken(field) ? field : confirmTokenOf(request.url);
  if (!token) return answer("incomplete-link");
  const outcome = await confirmSignUp(running, token);
  if (outcome === "failed") return answer("failed");
  if (outcome === "unknown") {
    // Tokens are 256 random bits; the limit (the unsubscribe page's) keeps a flood of guesses visible and slow.
    const client = clientAddressOf(context);
    if (!unsubscribeRateLimiter.hit(client)) {
      warnThrottled(`Newsletter: confirm rate limit reached by ${logClient(client)}.`, "confirm rate limit");
      return answer("too-many-requests");
    }
    return answer("expired");
  }
  return answer(outcome === "already" ? "already-confirmed" : "confirmed");
}
