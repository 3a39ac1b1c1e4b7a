// The list's Supabase adapter: PostgREST over HTTP with the anon key for what visitors do (a sign-up while mail is
// off, stored confirmed with its consent record, and the unsubscribe function), the double opt-in functions signed
// with SUPABASE_CONFIRM_SECRET when it is set, and the readers of a send with the service role key, which only the
// update command is given. The owner's tools do not reach it: the Supabase dashboard is theirs there.
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { anonWrites } from "~/newsletter/list/supabase/anon-writes.server";
import { supabaseConfirmations } from "~/newsletter/list/supabase/double-opt-in.server";
import { createMembership, readConfirmedReaders, readSuppressed } from "~/newsletter/list/supabase/readers.server";
import { supabaseSuppression } from "~/newsletter/list/supabase/suppression.server";
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
  /** Whether readers can be suppressed: the server signs with SUPABASE_CONFIRM_SECRET, the command has the service key. */
  readonly suppresses: boolean;
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
  // Readers with soft bounces counted, as of the last read: a delivery resets only theirs (no call per mail).
  let bouncing: Set<string> | null = null;
  const readers = serviceRoleKey
    ? readConfirmedReaders(url, serviceRoleKey, (found) => (bouncing = found))
    : refuse("reading the list from Supabase takes the service role key (SUPABASE_SERVICE_ROLE_KEY)");
  const isReader = createMembership(readers);
  const suppression = supabaseSuppression({
    url,
    anonKey,
    secret: confirmSecret,
    serviceRoleKey,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  const noSuppression = refuse(
    "suppressing readers in Supabase takes SUPABASE_CONFIRM_SECRET (the server) or SUPABASE_SERVICE_ROLE_KEY",
  );
  const noConfirmations = refuse("SUPABASE_CONFIRM_SECRET is not set: sign-ups are not confirmed");
  return {
    kind: "supabase",
    confirms: confirmations !== null,
    suppresses: suppression !== null,
    async signUp(email, request) {
      if (request.state === "confirmed")
        return { outcome: await writes.subscribe(email, request.consent), mail: false };
      try {
        if (!confirmations) return await noConfirmations();
        // Over the fair limits the database is not asked: the sign-up is answered as new, and nothing is stored.
        if (request.mayMail === false) return { outcome: "subscribed", mail: false, held: true };
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
    // Suppression goes through the database's signed functions (./suppression.server.ts).
    suppress: suppression ? suppression.suppress : noSuppression,
    softBounce: suppression ? suppression.softBounce : noSuppression,
    // Without a way in nothing is counted, so there is nothing to reset.
    async delivered(email) {
      const lower = email.toLowerCase();
      if (!suppression || (bouncing && !bouncing.has(lower))) return;
      await suppression.delivered(email);
      bouncing?.delete(lower);
    },
    unsuppress: suppression ? suppression.unsuppress : noSuppression,
    suppressedAddresses: serviceRoleKey
      ? readSuppressed(url, serviceRoleKey)
      : refuse("reading the list from Supabase takes the service role key (SUPABASE_SERVICE_ROLE_KEY)"),
    // Supabase is never called by a probe (a probe every few seconds must not spend its quota or fail when slow).
    healthy: () => true,
    owner: null,
    close: () => {},
  };
}
