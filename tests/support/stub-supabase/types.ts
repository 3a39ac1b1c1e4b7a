// The Supabase stub's names and shapes (tests/support/stub-supabase/stub.ts): what the site's calls and the tests see.
// Run by plain node too (main.ts): erasable TypeScript only, type-only imports marked `type`.

import type { ConfirmRows, ConfirmRpcs } from "./confirm.ts";
import type { ImportRpc } from "./import.ts";
import type { SuppressionRpcs } from "./suppression.ts";
export const TABLE = "newsletter_subscribers";
export const FUNCTION_NAME = "get-latest-tweet";
/** The database function of the unsubscribe migration, called as PostgREST's POST /rest/v1/rpc/<name>. */
export const UNSUBSCRIBE_FUNCTION = "unsubscribe_newsletter";
export const DEFAULT_LATEST_POST_TEXT = "Day one of the challenge: shipping small things, learning in public.";
export const UNIQUE_INDEX = "newsletter_subscribers_email_lower_key";
export const CHECK_CONSTRAINT = "newsletter_subscribers_email_check";
export const MAX_EMAIL_LENGTH = 255;

/** Same shape as PostgREST's error body; supabase-js hands it to the caller unchanged as `error`. */
export interface PostgrestErrorBody {
  code: string;
  details: string | null;
  hint: string | null;
  message: string;
}

/** Applies to every behaviour except `hang`: wait this long before answering. */
interface Delay {
  delayMs?: number;
}

export type InsertBehaviour = Delay &
  (
    | { kind: "store" } // the default: act like the migrated table (201, 409 on a case-insensitive duplicate, …)
    | { kind: "error"; status?: number; body?: PostgrestErrorBody } // default 500 with a PostgREST-shaped body
    | { kind: "non-json"; status?: number; body?: string; contentType?: string } // default 502 HTML gateway page
    | { kind: "hang" } // never answers until reset() or close()
  );

export type FunctionBehaviour = Delay &
  (
    | { kind: "text"; text?: string } // the default: 200 {"text": …}
    | { kind: "data-error"; error?: string } // 200 {"error": …}, the way the function reports upstream trouble
    | { kind: "json"; status?: number; body: unknown } // any JSON, e.g. {"text": ""} or {"text": 42}
    | { kind: "http-error"; status?: number; body?: unknown } // default 500 with a JSON body
    | { kind: "non-json"; status?: number; body?: string; contentType?: string } // default 502 HTML page
    | { kind: "hang" }
  );

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. /rest/v1/newsletter_subscribers. */
  path: string;
  /** The query string including its leading "?", or "". */
  query: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface StubState {
  functionCalls: number;
  insertCalls: number;
  inserts: Record<string, unknown>[];
  storedEmails: string[];
  insertBehaviour: InsertBehaviour;
  functionBehaviour: FunctionBehaviour;
  requests: RecordedRequest[];
}

export interface StubSupabase {
  /** Base URL to give createClient, e.g. http://127.0.0.1:54321 (no trailing slash). */
  readonly url: string;
  readonly anonKey: string;
  /** Every request except CORS preflights and /__stub/ control calls, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Invocations of get-latest-tweet (preflights excluded). */
  readonly functionCalls: number;
  /** POST requests to the newsletter table, whatever their outcome. */
  readonly insertCalls: number;
  /** Every row received by the newsletter table, parsed, in order, whatever the outcome. */
  readonly inserts: readonly Record<string, unknown>[];
  /** Addresses the "table" holds, as sent (the duplicate check compares them lower-cased). */
  readonly storedEmails: readonly string[];
  /** Calls of the unsubscribe function, whatever their outcome. */
  readonly unsubscribeCalls: number;
  /** The unsubscribe token the "table" gave this address (any letter case), as the column default would. */
  tokenOf(email: string): string | undefined;
  setInsertBehaviour(behaviour: InsertBehaviour): void;
  setFunctionBehaviour(behaviour: FunctionBehaviour): void;
  /** Pretend these addresses were subscribed earlier (not logged as inserts). */
  seedEmails(...emails: string[]): void;
  /** Clears log, stored addresses and behaviours, and drops any hung requests. */
  reset(): void;
  /** The double opt-in functions' state, when started with `confirmations`. */
  readonly confirmations: ConfirmRpcs | null;
  /** The suppression functions' state (always answered, as the migration is applied). */
  readonly suppression: SuppressionRpcs;
  /** The import function's state (always answered, as the migration is applied). */
  readonly imports: ImportRpc;
  state(): StubState;
  close(): Promise<void>;
}

export interface StubOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * Answer the double opt-in functions too, e.g. `(rows) => createConfirmRpcs(key, rows)` from
   * confirm.ts (given from outside: node runs the stub alone, without that one).
   */
  confirmations?: (rows: ConfirmRows) => ConfirmRpcs;
  /** The service role key: with it, and only with it, the table can be read (the update command, never the server). */
  serviceRoleKey?: string;
  anonKey?: string;
  /** The confirm_signing_key the "database" holds: suppression calls signed with it are accepted. */
  signingKey?: string;
}

function base64url(value: string): string {
  return Buffer.from(value).toString("base64url");
}

/**
 * Looks like a legacy Supabase anon JWT. It must not start with `sb_publishable_`: supabase-js only sends
 * JWT-style keys as the functions Bearer token, and the real anon key of this project is one.
 */
export const FAKE_ANON_KEY = [
  base64url(JSON.stringify({ alg: "HS256", typ: "JWT" })),
  base64url(JSON.stringify({ iss: "stub-supabase", ref: "stub", role: "anon", iat: 1758758400, exp: 2074118400 })),
  base64url("not-a-real-signature"),
].join(".");
