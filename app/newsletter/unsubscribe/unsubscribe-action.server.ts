import type { AppLoadContext } from "@remix-run/node";
import { readForm } from "~/utils/read-form.server";
import { clientAddressOf, logClient } from "~/utils/client-address.server";
import { warnThrottled } from "~/utils/log.server";
import { unsubscribeRateLimiter } from "~/newsletter/rate-limit.server";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";
import type { VisitorServices } from "~/newsletter/visitor-services.server";

/**
 * What the unsubscribe page says after a post. "unsubscribed" also for an unknown or used token: the page never
 * tells whether an address is on the list.
 */
export type UnsubscribeResult = "unsubscribed" | "incomplete-link" | "too-many-requests" | "failed";

const STATUS: Record<UnsubscribeResult, number> = {
  unsubscribed: 200,
  "incomplete-link": 400,
  "too-many-requests": 429,
  failed: 503,
};

/** The token of an unsubscribe link (`/unsubscribe?token=…`), or null when the link has none that could be one. */
export function tokenOf(url: string): string | null {
  const token = new URL(url).searchParams.get("token")?.trim().toLowerCase() ?? null;
  return isUnsubscribeToken(token) ? token : null;
}

/**
 * The unsubscribe page's action: the page's own button (a form with the token) and RFC 8058 one-click posts from mail
 * providers (`List-Unsubscribe=One-Click` in the body, the token in the URL, no cookies) both land here.
 */
export async function unsubscribeAction(
  request: Request,
  context: AppLoadContext,
  running: Pick<VisitorServices, "list">,
): Promise<{ result: UnsubscribeResult; status: number }> {
  const answer = (result: UnsubscribeResult) => ({ result, status: STATUS[result] });
  const read = await readForm(request);
  const field = read.kind === "form" ? read.form.get("token") : null;
  const token = tokenOf(request.url) ?? (isUnsubscribeToken(field) ? field : null);
  if (!token) return answer("incomplete-link");

  // Every token is looked up, whoever sends it: mail providers send one-click posts for many readers from a few
  // shared addresses, and each of those readers asked to leave. Only a token that belongs to nobody counts against the
  // limit (tokens are 122 random bits, so guessing is hopeless either way; the limit keeps a flood of them visible).
  const outcome = await running.list().unsubscribe(token);
  if (outcome === "failed") return answer("failed");
  if (outcome === "unknown") {
    const client = clientAddressOf(context);
    if (!unsubscribeRateLimiter.hit(client)) {
      warnThrottled(`Newsletter: unsubscribe rate limit reached by ${logClient(client)}.`, "unsubscribe rate limit");
      return answer("too-many-requests");
    }
  }
  return answer("unsubscribed");
}
