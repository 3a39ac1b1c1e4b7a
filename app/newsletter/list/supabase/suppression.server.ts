/**
 * Suppressed readers in Supabase, through the signed functions of supabase/migrations/20261127000000_newsletter_
 * suppression.sql. Two callers may change a suppression: the server (the relays' webhooks), which holds the anon key
 * and signs each call with SUPABASE_CONFIRM_SECRET, and the update command (a refusal during a send), which holds the
 * service role key, which the database trusts without a signature. The anon key alone changes nothing.
 */
import { createHmac } from "node:crypto";
import type { SoftBounceOutcome, SubscriberList, SuppressOutcome } from "~/newsletter/list/subscriber-list.server";
import { unsuppressVerdict } from "~/newsletter/list/ledger";
import { fetchWithoutRedirects } from "~/newsletter/list/supabase/anon-writes.server";
import { rpcCaller } from "~/newsletter/list/supabase/rpc.server";
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface SupabaseSuppressionOptions {
  url: string;
  anonKey: string;
  /** SUPABASE_CONFIRM_SECRET: the server's way in. */
  secret?: string | undefined;
  /** SUPABASE_SERVICE_ROLE_KEY: the update command's way in. */
  serviceRoleKey?: string | undefined;
  timeoutMs?: number;
}

export type SupabaseSuppression = Pick<SubscriberList, "suppress" | "softBounce" | "delivered" | "unsuppress">;

/**
 * What the database checks (newsletter_private.trusted_caller): the function's name, its arguments one a line (the
 * relay's words last, as they may hold a line break), then the server's clock in milliseconds, signed with the key.
 */
export const suppressionSignature = (secret: string, fields: readonly string[], issuedAt: number) =>
  createHmac("sha256", secret)
    .update(`${fields.join("\n")}\n${issuedAt}`)
    .digest("hex");

const REFUSED =
  "Supabase refused the suppression call: SUPABASE_CONFIRM_SECRET must equal the confirm_signing_key in " +
  "newsletter_private.settings (or the service role key be right), and the server's clock be right";

/** Null when neither way in is configured: then nothing can be suppressed, and the caller says so. */
export function supabaseSuppression(options: SupabaseSuppressionOptions): SupabaseSuppression | null {
  const { url, anonKey, secret, serviceRoleKey, timeoutMs = 5_000 } = options;
  if (!secret && !serviceRoleKey) return null;
  const client = createServerSupabaseClient(url, serviceRoleKey ?? anonKey, fetchWithoutRedirects);
  const call = rpcCaller(client, timeoutMs);

  /** Calls a suppression function with its arguments in order (`fields` as signed, `args` as named). */
  async function signed(name: string, fields: string[], args: Record<string, unknown>, answers: readonly string[]) {
    const issuedAt = Date.now();
    const signature = secret ? suppressionSignature(secret, [name, ...fields], issuedAt) : null;
    const answer = await call(name, { ...args, issued_at: issuedAt, signature });
    if (answer === "refused") throw new Error(REFUSED);
    if (typeof answer !== "string" || !answers.includes(answer)) {
      throw new Error(`Supabase ${name} answered ${JSON.stringify(answer)}`);
    }
    return answer;
  }

  return {
    async suppress(email, reason, detail, at) {
      const happened = at.getTime();
      const args = { address: email, reason, detail, happened_at: happened };
      const outcomes = ["suppressed", "already", "unknown"] as const;
      const fields = [email, reason, String(happened), detail];
      return (await signed("newsletter_suppress", fields, args, outcomes)) as SuppressOutcome;
    },
    async softBounce(email, detail, at) {
      const happened = at.getTime();
      const args = { address: email, detail, happened_at: happened };
      const outcomes = ["counted", "suppressed", "already", "unknown"] as const;
      return (await signed(
        "newsletter_soft_bounce",
        [email, String(happened), detail],
        args,
        outcomes,
      )) as SoftBounceOutcome;
    },
    async delivered(email) {
      await signed("newsletter_delivered", [email], { address: email }, ["done"]);
    },
    async unsuppress(email) {
      const answers = ["lifted", "not-suppressed", "kept-unsubscribed", "kept-complained"];
      const answer = await signed("newsletter_unsuppress", [email], { address: email }, answers);
      if (answer === "lifted" || answer === "not-suppressed") return { kind: answer };
      const reason = answer === "kept-complained" ? "complained" : "unsubscribed";
      const verdict = unsuppressVerdict(reason);
      return { kind: "refused", reason, why: verdict.lift ? reason : verdict.why };
    },
  };
}
