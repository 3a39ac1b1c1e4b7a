// The writes the anon key may make: a confirmed sign-up (mail off) and an unsubscribe by token.
import { createServerSupabaseClient } from "~/utils/supabase.server";
import { maskEmail } from "~/utils/mask-email.server";
import { describeCause, logField } from "~/utils/log.server";
import { withinTimeBox } from "~/utils/time-box.server";
import { type SubscribeOutcome, type UnsubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";

const SUBSCRIBERS_TABLE = "newsletter_subscribers";
/**
 * The database function that removes the subscriber holding a token (supabase/migrations). The anon role can call
 * it, and nothing else can remove a row: it deletes at most the row with exactly that token and answers nothing.
 */
const UNSUBSCRIBE_FUNCTION = "unsubscribe_newsletter";
/** Postgres unique_violation: the address (in any letter case) is already on the list. */
const UNIQUE_VIOLATION = "23505";
/** Long enough for a slow PostgREST, short enough that a visitor is not left waiting on a hung one. */
const SUPABASE_TIMEOUT_MS = 5_000;

export interface AnonWriteOptions {
  url: string;
  anonKey: string;
  timeoutMs?: number;
}

/** The part of a PostgREST answer the outcome depends on. */
export interface InsertResult {
  error: { code?: unknown; message?: unknown } | null;
  status: number;
}

/**
 * Maps PostgREST's answer to an outcome: 201 without error is success, 23505 a duplicate, anything else a failure.
 * Only 201 Created says the row was written: a 200 or 204 comes from something else in between (a proxy, a redirect
 * answered as a GET, a captive portal) and the address may be nowhere.
 */
export function supabaseOutcome({ error, status }: InsertResult): SubscribeOutcome {
  if (error) return error.code === UNIQUE_VIOLATION ? "duplicate" : "failed";
  return status === 201 ? "subscribed" : "failed";
}

class TimeBoxError extends Error {
  override name = "TimeBoxError";
}

/** A write answered with something PostgREST never sends (a redirect): the message names what happened. */
class UnexpectedAnswer extends Error {
  override name = "UnexpectedAnswer";
}

/**
 * fetch for writes, which never follows a redirect: fetch would repeat a 301 or 302 as a GET, whose `200 []` looked
 * like a stored row while nothing was stored. The redirect fails the call instead, saying where it pointed (an
 * `http://` SUPABASE_URL behind an HTTPS redirect, a proxy in between), so the owner can fix the setting.
 */
export const fetchWithoutRedirects: typeof fetch = async (input, init) => {
  const response = await fetch(input, { ...init, redirect: "manual" });
  if (response.status < 300 || response.status > 399) return response;
  await response.body?.cancel().catch(() => {});
  const location = response.headers.get("location");
  throw new UnexpectedAnswer(
    location === null
      ? `SUPABASE_URL answered HTTP ${response.status} without a Location`
      : `SUPABASE_URL redirects to ${logField(location)} (HTTP ${response.status})`,
  );
};

/** Why an insert that PostgREST did not refuse still counts as failed, for its one log line. */
function describeFailedInsert({ error, status }: InsertResult): string {
  // Status 0: the call itself failed (refused, aborted, a redirect); the message says how.
  const http = status === 0 ? "" : ` (HTTP ${status}${error?.code ? ` ${String(error.code)}` : ""})`;
  if (error) return `${http}${error.message ? `: ${describeCause(error.message)}` : ""}`;
  return `${http}: expected 201 Created from PostgREST, so the row may not be stored`;
}

export interface AnonWrites {
  /** Stores one address, confirmed. Never throws. */
  subscribe(email: string): Promise<SubscribeOutcome>;
  unsubscribe(token: string): Promise<UnsubscribeOutcome>;
}

export function anonWrites({ url, anonKey, timeoutMs = SUPABASE_TIMEOUT_MS }: AnonWriteOptions): AnonWrites {
  // Every call here writes (the insert, the unsubscribe function).
  const client = createServerSupabaseClient(url, anonKey, fetchWithoutRedirects);

  return {
    async subscribe(email) {
      try {
        // No .select(): returning the row needs a select policy, and visitors must never be able to read the list.
        const request = client.from(SUBSCRIBERS_TABLE).insert({ email }).abortSignal(AbortSignal.timeout(timeoutMs));
        // The abort signal cancels the HTTP call; the time box makes sure we answer even if something ignores it.
        const result = await withinTimeBox(request, timeoutMs + 250, () => {
          throw new TimeBoxError(`no answer within ${timeoutMs} ms`);
        });
        const outcome = supabaseOutcome(result);
        if (outcome === "failed") {
          console.error(`Newsletter: Supabase insert for ${maskEmail(email)} failed${describeFailedInsert(result)}`);
        }
        return outcome;
      } catch (error) {
        console.error(`Newsletter: Supabase insert for ${maskEmail(email)} failed: ${describeCause(error)}`);
        return "failed";
      }
    },
    async unsubscribe(token) {
      if (!isUnsubscribeToken(token)) return "unknown";
      try {
        const { data, error, status } = await client
          .rpc(UNSUBSCRIBE_FUNCTION, { token })
          .abortSignal(AbortSignal.timeout(timeoutMs));
        // The function answers whether it removed a row; a database still on the first version of the function
        // answers nothing, and then the token is taken as known: a reader is never refused for what we cannot tell.
        if (!error && status >= 200 && status < 300) return data === false ? "unknown" : "removed";
        const code = error?.code ? ` ${String(error.code)}` : "";
        const message = error?.message ? `: ${describeCause(error.message)}` : "";
        console.error(`Newsletter: Supabase unsubscribe failed (HTTP ${status}${code})${message}`);
        return "failed";
      } catch (error) {
        console.error(`Newsletter: Supabase unsubscribe failed: ${describeCause(error)}`);
        return "failed";
      }
    },
  };
}
