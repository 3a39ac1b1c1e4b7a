import { createServerSupabaseClient } from "~/utils/supabase.server";
import { maskEmail } from "~/newsletter/mask-email.server";
import { withinTimeBox } from "~/utils/time-box.server";
import {
  describeCause,
  isUnsubscribeToken,
  type SubscribeOutcome,
  type SubscriberStore,
} from "~/newsletter/stores/types.server";

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

export interface SupabaseStoreOptions {
  url: string;
  anonKey: string;
  timeoutMs?: number;
}

/** The part of a PostgREST answer the outcome depends on. */
export interface InsertResult {
  error: { code?: unknown; message?: unknown } | null;
  status: number;
}

/** Maps PostgREST's answer to an outcome: 2xx without error is success, 23505 a duplicate, anything else a failure. */
export function supabaseOutcome({ error, status }: InsertResult): SubscribeOutcome {
  if (error) return error.code === UNIQUE_VIOLATION ? "duplicate" : "failed";
  return status >= 200 && status < 300 ? "subscribed" : "failed";
}

class TimeBoxError extends Error {
  override name = "TimeBoxError";
}

export function createSupabaseStore({ url, anonKey, timeoutMs = SUPABASE_TIMEOUT_MS }: SupabaseStoreOptions) {
  const client = createServerSupabaseClient(url, anonKey);

  const store: SubscriberStore & { kind: "supabase" } = {
    kind: "supabase",
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
          const code = result.error?.code ? ` ${String(result.error.code)}` : "";
          const message = result.error?.message ? `: ${describeCause(result.error.message)}` : "";
          console.error(
            `Newsletter: Supabase insert for ${maskEmail(email)} failed (HTTP ${result.status}${code})${message}`,
          );
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
  return store;
}
