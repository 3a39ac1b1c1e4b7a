/**
 * The stub's answer to the import function of supabase/migrations/20261127000500_newsletter_import.sql
 * (newsletter_import_reader), as PostgREST sends it: a text result as a JSON string ('added' or 'exists'), unknown
 * arguments as PGRST202, and, as the function's execute right is the service role's alone, 42501 for any other key.
 *
 * Run by `node` through stub.ts too: erasable TypeScript only.
 */

import { rpcArguments } from "./rpc-arguments.ts";

const NAME = "newsletter_import_reader";
const ARGUMENTS = ["address", "consent_note", "detail", "imported_at", "reason", "signed_up_at"];
const REASONS = new Set(["bounced", "complained", "unsubscribed"]);
const MAX_EMAIL_LENGTH = 255;

export type ImportReason = "bounced" | "complained" | "unsubscribed";

/** What the "table" holds of an imported reader beside the address: the columns the function fills. */
export interface ImportedRecord {
  createdAt: string;
  confirmedAt: string;
  consentPage: string;
  reason: ImportReason | null;
  detail: string | null;
}

/** The rest of the stub, as the function reaches it. */
export interface ImportRows {
  has(lower: string): boolean;
  /** Stores the address (confirmed: the stub's default state) with a fresh unsubscribe token. */
  add(email: string): void;
  /** Records the reader's suppression, as the row's suppressed_* columns. */
  suppress(email: string, reason: ImportReason, detail: string, at: number): void;
}

export interface ImportRpc {
  /** The columns an import filled for this address (any letter case), or undefined when it was not imported. */
  recordOf(email: string): ImportedRecord | undefined;
  /** Calls of the function, whatever their outcome. */
  readonly calls: number;
  /** The reply to POST /rest/v1/rpc/<name>, or null when the function is not this one. */
  handle(name: string, body: string, serviceRole: boolean): { status: number; body: unknown } | null;
  reset(): void;
}

const pgError = (status: number, code: string, message: string) => ({
  status,
  body: { code, details: null, hint: null, message },
});

const isTime = (value: unknown): value is string => typeof value === "string" && !Number.isNaN(Date.parse(value));

export function createImportRpc(rows: ImportRows): ImportRpc {
  let records = new Map<string, ImportedRecord>();
  let calls = 0;

  /** The function's body: the table's check constraints, then insert-if-absent in any letter case. */
  function answer(args: Record<string, unknown>) {
    const { address, reason, detail, consent_note: note, imported_at: importedAt } = args;
    const signedUpAt = args.signed_up_at ?? null;
    if (!isTime(importedAt) || typeof note !== "string") {
      return pgError(400, "P0001", "an imported reader needs the import time and a consent note");
    }
    if ((signedUpAt !== null && !isTime(signedUpAt)) || (reason !== null && typeof reason !== "string")) {
      return pgError(400, "22007", "invalid input syntax");
    }
    const email = String(address);
    if ([...email].length > MAX_EMAIL_LENGTH || /\s/.test(email) || !/^[^@]+@[^@]+$/.test(email)) {
      return pgError(400, "23514", 'new row violates check constraint "newsletter_subscribers_email_check"');
    }
    if (reason !== null && !REASONS.has(reason)) {
      return pgError(
        400,
        "23514",
        'new row violates check constraint "newsletter_subscribers_suppressed_reason_check"',
      );
    }
    const lower = email.toLowerCase();
    if (rows.has(lower)) return { status: 200, body: "exists" };
    rows.add(email);
    const suppressed = reason as ImportReason | null;
    const why = suppressed ? String(detail ?? "said so in the import").slice(0, 1000) : null;
    if (suppressed) rows.suppress(email, suppressed, why ?? "", Date.parse(importedAt));
    records.set(lower, {
      createdAt: signedUpAt ?? importedAt,
      confirmedAt: importedAt,
      consentPage: note.slice(0, 1000),
      reason: suppressed,
      detail: why,
    });
    return { status: 200, body: "added" };
  }

  return {
    recordOf: (email) => records.get(email.toLowerCase()),
    get calls() {
      return calls;
    },
    handle(name, body, serviceRole) {
      if (name !== NAME) return null;
      calls += 1;
      const args = rpcArguments(body, ARGUMENTS);
      if (!args) {
        const message = `Could not find the function public.${name} with the given parameters in the schema cache`;
        return pgError(404, "PGRST202", message);
      }
      if (!serviceRole) return pgError(401, "42501", `permission denied for function ${name}`);
      return answer(args);
    },
    reset() {
      records = new Map();
      calls = 0;
    },
  };
}
