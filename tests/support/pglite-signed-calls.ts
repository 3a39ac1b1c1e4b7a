// The suppression functions of the Supabase migrations called as the server calls them: with the anon key, signed
// with the confirmation secret by the product's own signature (app/newsletter/list/supabase/suppression.server.ts).
import type { PGlite } from "@electric-sql/pglite";
import { suppressionSignature } from "~/newsletter/list/supabase/suppression.server";
import { asRole } from "./pglite-migrations";

/** One function's answer, called as `role`. */
export const answerOf = (db: PGlite, role: string, sql: string, params: unknown[] = []) =>
  asRole(
    db,
    role,
    async (tx) => (await tx.query<{ answer: unknown }>(`select ${sql} as answer`, params)).rows[0]!.answer,
  );

/** A relay's verdict and the owner's unsuppress, signed with `key` (the database's confirm_signing_key). */
export function signedCalls(db: () => PGlite, key: string) {
  return {
    suppress(email: string, reason: string, detail: string, happened: number) {
      const issuedAt = Date.now();
      const fields = ["newsletter_suppress", email, reason, String(happened), detail];
      return answerOf(db(), "anon", "public.newsletter_suppress($1, $2, $3, $4, $5, $6)", [
        email,
        reason,
        detail,
        happened,
        issuedAt,
        suppressionSignature(key, fields, issuedAt),
      ]);
    },
    unsuppress(email: string) {
      const issuedAt = Date.now();
      return answerOf(db(), "anon", "public.newsletter_unsuppress($1, $2, $3)", [
        email,
        issuedAt,
        suppressionSignature(key, ["newsletter_unsuppress", email], issuedAt),
      ]);
    },
  };
}
