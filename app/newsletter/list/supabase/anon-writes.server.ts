// The writes the anon key may make: a sign-up while mail is off (stored confirmed, with its consent record) and an
// unsubscribe by token.
import { createServerSupabaseClient } from "~/utils/supabase.server";
import { maskEmail } from "~/utils/mask-email.server";
import { describeCause, describeValue, logField } from "~/utils/log.server";
import { withinTimeBox } from "~/utils/time-box.server";
import { type Consent, type SubscribeOutcome, type UnsubscribeOutcome } from "~/newsletter/list/subscriber-list.server";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";

const SUBSCRIBERS_TABLE = "newsletter_subscribers";
/**
 * The database function that stores a sign-up while mail is off, with its consent record (supabase/migrations). It
 * answers in words: 'subscribed', 'pending' (the database holds a signing key, so it waits for a confirmation) or
 * 'duplicate'.
 */
const SIGN_UP_FUNCTION = "newsletter_sign_up_without_mail";
/** Where that function comes from: a database without it is told to apply this. */
export const SIGN_UP_MIGRATION = "supabase/migrations/20261128300000_newsletter_sign_up_without_mail.sql";
/** PostgREST's "no such function in the schema cache" (HTTP 404): the migration above is not applied. */
const FUNCTION_MISSING = "PGRST202";
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

/** A database function's answer: its value too. */
export interface RpcResult extends InsertResult {
  data: unknown;
}

/** What the sign-up function's answer says: its own words, "missing" (not applied yet) or "failed". */
export type WithoutMailAnswer = SubscribeOutcome | "pending" | "missing";

/**
 * Maps PostgREST's answer to the sign-up function's call: only a 200 whose body is one of the function's own answers
 * says what was stored. Anything else (an empty 200, `[]`, a page from something in between) is a failure: the
 * address may be nowhere. PGRST202 with a 404 says the database lacks the function.
 */
export function withoutMailAnswer({ data, error, status }: RpcResult): WithoutMailAnswer {
  if (error) return error.code === FUNCTION_MISSING && status === 404 ? "missing" : "failed";
  if (status !== 200) return "failed";
  return data === "subscribed" || data === "pending" || data === "duplicate" ? data : "failed";
}

/**
 * Maps PostgREST's answer to the plain insert to an outcome: 201 without error is success, 23505 a duplicate,
 * anything else a failure. Only 201 Created says the row was written: a 200 or 204 comes from something else in between (a proxy, a redirect
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

/** Why a call counts as failed, for its one log line; `expected` says what a success would have been. */
function describeFailure({ error, status }: InsertResult, expected: string): string {
  // Status 0: the call itself failed (refused, aborted, a redirect); the message says how.
  const http = status === 0 ? "" : ` (HTTP ${status}${error?.code ? ` ${String(error.code)}` : ""})`;
  if (error) return `${http}${error.message ? `: ${describeCause(error.message)}` : ""}`;
  return `${http}: expected ${expected}, so the row may not be stored`;
}

/** A call answered within the time box, or thrown at: the abort signal cancels it, the box answers even if ignored. */
function timeBoxed<T>(request: PromiseLike<T>, timeoutMs: number): Promise<T> {
  return withinTimeBox(request, timeoutMs + 250, () => {
    throw new TimeBoxError(`no answer within ${timeoutMs} ms`);
  });
}

export interface AnonWrites {
  /** Stores one address, confirmed, with its consent record. Never throws. */
  subscribe(email: string, consent: Consent): Promise<SubscribeOutcome>;
  unsubscribe(token: string): Promise<UnsubscribeOutcome>;
}

export function anonWrites({ url, anonKey, timeoutMs = SUPABASE_TIMEOUT_MS }: AnonWriteOptions): AnonWrites {
  // Every call here writes (the sign-up and unsubscribe functions, the insert).
  const client = createServerSupabaseClient(url, anonKey, fetchWithoutRedirects);

  /** The plain insert of { email }: what a database without the sign-up function still takes. */
  async function insert(email: string): Promise<SubscribeOutcome> {
    // No .select(): returning the row needs a select policy, and visitors must never be able to read the list.
    const request = client.from(SUBSCRIBERS_TABLE).insert({ email }).abortSignal(AbortSignal.timeout(timeoutMs));
    const result = await timeBoxed(request, timeoutMs);
    const outcome = supabaseOutcome(result);
    if (outcome === "failed") {
      console.error(
        `Newsletter: Supabase insert for ${maskEmail(email)} failed${describeFailure(result, "201 Created")}`,
      );
    }
    return outcome;
  }

  async function signUp(email: string, consent: Consent): Promise<SubscribeOutcome> {
    const args = { address: email, page: consent.page, wording_version: consent.version, wording: consent.wording };
    const result = await timeBoxed(
      client.rpc(SIGN_UP_FUNCTION, args).abortSignal(AbortSignal.timeout(timeoutMs)),
      timeoutMs,
    );
    const answer = withoutMailAnswer(result);
    const who = maskEmail(email);
    switch (answer) {
      case "missing":
        // The image runs before `supabase db push`: the sign-up is still taken, as before, and the owner told why
        // it keeps no consent record.
        console.warn(
          `Newsletter: Supabase has no ${SIGN_UP_FUNCTION}, so ${who} is stored without its consent record: ` +
            `apply ${SIGN_UP_MIGRATION} (supabase db push)`,
        );
        return insert(email);
      case "pending":
        console.warn(
          `Newsletter: Supabase stored ${who} pending: the database holds a confirm_signing_key, so sign-ups wait ` +
            "for a confirmation mail this server does not send (give it SUPABASE_CONFIRM_SECRET and a relay)",
        );
        return "subscribed";
      case "failed": {
        const expected = `one of the function's answers, got ${describeValue(result.data)}`;
        console.error(`Newsletter: Supabase sign-up of ${who} failed${describeFailure(result, expected)}`);
        return "failed";
      }
      default:
        return answer;
    }
  }

  return {
    async subscribe(email, consent) {
      try {
        return await signUp(email, consent);
      } catch (error) {
        console.error(`Newsletter: Supabase sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
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
