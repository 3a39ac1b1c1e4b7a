// The Supabase stand-in's names and shapes (tests/support/stub-supabase/stub.ts): what the site's calls and the tests
// see. Run by plain node too (main.ts): erasable TypeScript only, type-only imports marked `type`.
import type { PGlite } from "@electric-sql/pglite";
import type { SubscriberRow } from "./database.ts";

export const TABLE = "newsletter_subscribers";
export const FUNCTION_NAME = "get-latest-tweet";
/** The database function of the unsubscribe migration, called as PostgREST's POST /rest/v1/rpc/<name>. */
export const UNSUBSCRIBE_FUNCTION = "unsubscribe_newsletter";
export const DEFAULT_LATEST_POST_TEXT = "Day one of the challenge: shipping small things, learning in public.";
/** The service role key of a stand-in not given one: the owner's commands use it. */
export const STUB_SERVICE_ROLE_KEY = "stub-service-role-key";

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

/**
 * How PostgREST answers (the table and every database function): by default the database's own answer, or a failure,
 * a delay or a hang the test scripts in front of it.
 */
export type InsertBehaviour = Delay &
  (
    | { kind: "store" } // the default: the database's answer (after the delay, if any)
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
  readonly serviceRoleKey: string;
  /** The database behind PostgREST (the real migrations on PGlite), for what the owner does in the SQL editor. */
  readonly db: PGlite;
  /** Every request except CORS preflights and /__stub/ control calls, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Invocations of get-latest-tweet (preflights excluded). */
  readonly functionCalls: number;
  /** POST requests to the newsletter table, whatever their outcome. */
  readonly insertCalls: number;
  /** Every row received by the newsletter table, parsed, in order, whatever the outcome. */
  readonly inserts: readonly Record<string, unknown>[];
  /** Calls of the unsubscribe function, whatever their outcome. */
  readonly unsubscribeCalls: number;
  /** Calls of this database function (POST /rest/v1/rpc/<name>), whatever their outcome. */
  callsOf(name: string): number;
  /** The addresses the table holds, oldest first, as written. */
  storedEmails(): Promise<string[]>;
  /** The row of this address (any letter case), every column, or undefined. */
  rowOf(email: string): Promise<SubscriberRow | undefined>;
  /** The unsubscribe token the table gave this address (any letter case). */
  tokenOf(email: string): Promise<string | undefined>;
  /** The reason this address's row is suppressed for, or null (also when it is not on the list). */
  suppressedReason(email: string): Promise<SubscriberRow["suppressed_reason"]>;
  setInsertBehaviour(behaviour: InsertBehaviour): void;
  setFunctionBehaviour(behaviour: FunctionBehaviour): void;
  /** Readers who signed up earlier, confirmed (not logged as requests). */
  seedEmails(...emails: string[]): Promise<void>;
  /** Clears the log, the list (keeping the keys) and the behaviours, and drops any hung requests. */
  reset(): Promise<void>;
  state(): Promise<StubState>;
  close(): Promise<void>;
}

export interface StubOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  anonKey?: string;
  /** The service role key: with it, and only with it, the table can be read (the owner's commands, never the server). */
  serviceRoleKey?: string;
  /**
   * The confirm_signing_key the owner stored in the database: with it sign-ups wait for a confirmation, and the
   * server's signed calls are accepted.
   */
  signingKey?: string;
  /**
   * false: no database (PGlite takes seconds to start), for tests of the edge function alone; the list's calls then
   * answer 503, as a paused project does.
   */
  database?: boolean;
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
