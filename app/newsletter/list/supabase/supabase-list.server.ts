// The list's Supabase adapter: PostgREST over HTTP with the anon key for what visitors do (a confirmed sign-up's
// insert, the unsubscribe function), the double opt-in functions signed with SUPABASE_CONFIRM_SECRET when it is set,
// and the readers of a send with the service role key, which only the update command is given. The owner's tools do
// not reach it: the Supabase dashboard is theirs there.
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { anonWrites } from "~/newsletter/list/supabase/anon-writes.server";
import { supabaseConfirmations } from "~/newsletter/list/supabase/double-opt-in.server";
import { createMembership, readConfirmedReaders } from "~/newsletter/list/supabase/readers.server";
import { maskEmail } from "~/utils/mask-email.server";
import { describeCause } from "~/utils/log.server";

export { fetchWithoutRedirects, supabaseOutcome } from "~/newsletter/list/supabase/anon-writes.server";
export { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";

export interface SupabaseListOptions {
  url: string;
  anonKey: string;
  /** SUPABASE_CONFIRM_SECRET: without it, sign-ups cannot wait for a confirmation. */
  confirmSecret?: string | undefined;
  /** SUPABASE_SERVICE_ROLE_KEY: the update command's alone; without it, the readers cannot be read. */
  serviceRoleKey?: string | undefined;
  timeoutMs?: number;
}

export interface SupabaseList extends SubscriberList {
  readonly kind: "supabase";
  /** Whether sign-ups can be stored pending (the database checks the server's signature). */
  readonly confirms: boolean;
}

const refuse = (what: string) => async (): Promise<never> => {
  throw new Error(what);
};

export function openSupabaseList(options: SupabaseListOptions): SupabaseList {
  const { url, anonKey, confirmSecret, serviceRoleKey, timeoutMs } = options;
  const writes = anonWrites({ url, anonKey, ...(timeoutMs ? { timeoutMs } : {}) });
  const confirmations = confirmSecret
    ? supabaseConfirmations({ url, anonKey, secret: confirmSecret, ...(timeoutMs ? { timeoutMs } : {}) })
    : null;
  const readers = serviceRoleKey
    ? readConfirmedReaders(url, serviceRoleKey)
    : refuse("reading the list from Supabase takes the service role key (SUPABASE_SERVICE_ROLE_KEY)");
  const isReader = createMembership(readers);
  const noSuppression = refuse("suppressing readers is not built for a list in Supabase yet");
  const noConfirmations = refuse("SUPABASE_CONFIRM_SECRET is not set: sign-ups are not confirmed");
  return {
    kind: "supabase",
    confirms: confirmations !== null,
    async signUp(email, request = { state: "confirmed" }) {
      if (request.state === "confirmed") return { outcome: await writes.subscribe(email), mail: false };
      try {
        if (!confirmations) return await noConfirmations();
        return await confirmations.signUp(email, request.consent);
      } catch (error) {
        console.error(`Newsletter: the sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
        return { outcome: "failed", mail: false };
      }
    },
    unsubscribe: (token) => writes.unsubscribe(token),
    issueConfirmToken: (email, tokenHash, now) =>
      confirmations ? confirmations.issueToken(email, tokenHash, now) : noConfirmations(),
    confirm: (token) => (confirmations ? confirmations.confirm(token) : noConfirmations()),
    // The database removes expired pending readers itself, on every sign-up and every token.
    expirePending: async () => {},
    readers,
    isReader,
    // Suppression in Supabase needs its migration and signed functions (issue 40, not built yet): say so, loudly.
    suppress: noSuppression,
    softBounce: noSuppression,
    // Nothing to reset where nothing is counted.
    delivered: async () => {},
    unsuppress: noSuppression,
    // Supabase is never called by a probe (a probe every few seconds must not spend its quota or fail when slow).
    healthy: () => true,
    owner: null,
    close: () => {},
  };
}
