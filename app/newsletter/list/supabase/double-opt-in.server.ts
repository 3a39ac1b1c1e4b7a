/**
 * Double opt-in with Supabase, through the database functions of supabase/migrations/20261124100000_newsletter_
 * confirmation.sql, with the anon key. Attaching a token's hash is signed with SUPABASE_CONFIRM_SECRET (HMAC-SHA-256
 * over address, hash and time), the key the owner also stored in newsletter_private.settings: without it the anon key
 * cannot attach a token of its own, so it cannot confirm anyone.
 */
import { createHmac } from "node:crypto";
import type { ConfirmOutcome, Consent, IssueOutcome, SignUp } from "~/newsletter/list/subscriber-list.server";
import { rpcCaller } from "~/newsletter/list/supabase/rpc.server";
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface SupabaseConfirmOptions {
  url: string;
  anonKey: string;
  secret: string;
  timeoutMs?: number;
}

/** The signature the database checks: what only the server and the database can make. */
export const issueSignature = (secret: string, email: string, tokenHash: string, issuedAt: number) =>
  createHmac("sha256", secret).update(`${email}\n${tokenHash}\n${issuedAt}`).digest("hex");

/** What double opt-in asks of the database; each call throws when Supabase cannot answer. */
export interface SupabaseConfirmations {
  signUp(email: string, consent: Consent): Promise<SignUp>;
  issueToken(email: string, tokenHash: string, now: number): Promise<IssueOutcome>;
  confirm(token: string): Promise<ConfirmOutcome>;
}

export function supabaseConfirmations({ url, anonKey, secret, timeoutMs = 5_000 }: SupabaseConfirmOptions) {
  const client = createServerSupabaseClient(url, anonKey);

  const call = rpcCaller(client, timeoutMs);

  return {
    async signUp(email, consent) {
      const answer = await call("newsletter_sign_up", {
        address: email,
        page: consent.page,
        wording_version: consent.version,
        wording: consent.wording,
      });
      if (answer === "subscribed") return { outcome: "subscribed", mail: true };
      if (answer === "resend") return { outcome: "duplicate", mail: true };
      if (answer === "duplicate") return { outcome: "duplicate", mail: false };
      throw new Error(`Supabase newsletter_sign_up answered ${JSON.stringify(answer)}`);
    },
    async issueToken(email, tokenHash, now) {
      const answer = await call("newsletter_issue_confirm_token", {
        address: email,
        token_hash: tokenHash,
        issued_at: now,
        signature: issueSignature(secret, email, tokenHash, now),
      });
      if (answer === "issued" || answer === "gone" || answer === "confirmed") return answer;
      if (answer === "refused") {
        throw new Error(
          "Supabase refused the confirmation token's signature: SUPABASE_CONFIRM_SECRET must equal the " +
            "confirm_signing_key in newsletter_private.settings, and the server's clock be right",
        );
      }
      throw new Error(`Supabase newsletter_issue_confirm_token answered ${JSON.stringify(answer)}`);
    },
    async confirm(token) {
      // The used token's hash stays with a confirmed reader (supabase/migrations/20261127000100_…), so a reused link
      // is told apart from a wrong one.
      const answer = await call("newsletter_confirm_reader", { token });
      if (answer === "confirmed" || answer === "already" || answer === "unknown") return answer;
      throw new Error(`Supabase newsletter_confirm_reader answered ${JSON.stringify(answer)}`);
    },
  } satisfies SupabaseConfirmations;
}
