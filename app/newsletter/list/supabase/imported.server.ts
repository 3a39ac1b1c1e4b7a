// Readers brought from another tool (npm run subscribers -- import) into the Supabase list, with the service role key
// given to that command alone: which addresses the list knows (read once, in any state, suppressed ones included, so
// an import never revives a reader who left), and each new reader stored by the database's own function
// (supabase/migrations/20261127000500_newsletter_import.sql), which adds it only when the address is not there.
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { fetchWithoutRedirects } from "~/newsletter/list/supabase/anon-writes.server";
import { everyRow } from "~/newsletter/list/supabase/readers.server";
import { rpcCaller } from "~/newsletter/list/supabase/rpc.server";
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface SupabaseImportOptions {
  url: string;
  /** SUPABASE_SERVICE_ROLE_KEY: only the service role may read the list and call the import function. */
  serviceRoleKey: string;
  timeoutMs?: number;
}

/** What the import needs of the list (app/newsletter/admin/import/list-target.server.ts), answered by Supabase. */
export interface SupabaseImported {
  has(email: string): Promise<boolean>;
  addImported(row: ImportedRow): Promise<boolean>;
}

export function supabaseImported(options: SupabaseImportOptions): SupabaseImported {
  const { url, serviceRoleKey, timeoutMs = 10_000 } = options;
  const client = createServerSupabaseClient(url, serviceRoleKey, fetchWithoutRedirects);
  const call = rpcCaller(client, timeoutMs);
  // One read of the whole list rather than a request per row of the file; the function checks again as it writes.
  let known: Promise<Set<string>> | null = null;
  const addresses = () =>
    (known ??= everyRow<{ email: string }>((from, to) =>
      client.from("newsletter_subscribers").select("email").order("id").range(from, to),
    ).then((rows) => new Set(rows.map((row) => row.email.toLowerCase()))));

  return {
    has: async (email) => (await addresses()).has(email.toLowerCase()),
    async addImported(row) {
      const { suppression } = row;
      const answer = await call("newsletter_import_reader", {
        address: row.email,
        signed_up_at: row.createdAt,
        imported_at: row.importedAt,
        consent_note: row.consentNote,
        reason: suppression?.reason ?? null,
        detail: suppression?.detail ?? null,
      });
      // 'suppressed': a reader an earlier file brought in, whom this file says left (the ledger migration).
      if (answer !== "added" && answer !== "exists" && answer !== "suppressed") {
        throw new Error(`Supabase newsletter_import_reader answered ${JSON.stringify(answer)}`);
      }
      if (answer === "added") (await addresses()).add(row.email.toLowerCase());
      return answer !== "exists";
    },
  };
}
