/**
 * A real HTTP server that answers the two Supabase calls the site makes (PostgREST insert into
 * newsletter_subscribers, and the get-latest-tweet edge function) the way the hosted services do, so the
 * unmodified supabase-js client can be exercised end to end without a network.
 *
 * This file is run directly by `node` (type stripping) from stub-supabase-main.ts, so it must stay within
 * erasable TypeScript: no enums, namespaces or parameter properties, and type-only imports marked `type`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConfirmRows, ConfirmRpcs } from "./stub-supabase-confirm";

export const TABLE = "newsletter_subscribers";
export const FUNCTION_NAME = "get-latest-tweet";
/** The database function of the unsubscribe migration, called as PostgREST's POST /rest/v1/rpc/<name>. */
export const UNSUBSCRIBE_FUNCTION = "unsubscribe_newsletter";
export const DEFAULT_TWEET_TEXT = "Day one of the challenge: shipping small things, learning in public.";
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
  /** The double opt-in functions' state, when started with confirmSigningKey. */
  readonly confirmations: ConfirmRpcs | null;
  state(): StubState;
  close(): Promise<void>;
}

export interface StubOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  anonKey?: string;
  /**
   * Answer the double opt-in functions too, e.g. `(rows) => createConfirmRpcs(key, rows)` from
   * stub-supabase-confirm.ts (given from outside: node runs this file alone, without that one).
   */
  confirmations?: (rows: ConfirmRows) => ConfirmRpcs;
  /** The service role key: with it, and only with it, the table can be read (the update command, never the server). */
  serviceRoleKey?: string;
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

const DEFAULT_INSERT_BEHAVIOUR: InsertBehaviour = { kind: "store" };
const DEFAULT_FUNCTION_BEHAVIOUR: FunctionBehaviour = { kind: "text", text: DEFAULT_TWEET_TEXT };

const GATEWAY_HTML =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
  "<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n";

// Browsers call both services cross-origin; the hosted gateway and a well-behaved edge function both allow it.
const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS",
  "access-control-expose-headers": "content-range, content-profile",
  "access-control-max-age": "600",
};

const JSON_TYPE = "application/json; charset=utf-8";

class BehaviourError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalNumber(value: Record<string, unknown>, key: string): number | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field !== "number" || !Number.isInteger(field) || field < 0) {
    throw new BehaviourError(`${key} must be a non-negative integer`);
  }
  return field;
}

function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field !== "string") throw new BehaviourError(`${key} must be a string`);
  return field;
}

function optionalStatus(value: Record<string, unknown>): number | undefined {
  const code = optionalNumber(value, "status");
  if (code !== undefined && (code < 200 || code > 599)) throw new BehaviourError("status must be 200-599");
  return code;
}

// Control calls come from another process as JSON, so they are checked rather than trusted.
export function parseInsertBehaviour(value: unknown): InsertBehaviour {
  if (!isRecord(value)) throw new BehaviourError("behaviour must be a JSON object");
  const delayMs = optionalNumber(value, "delayMs");
  const delay = delayMs === undefined ? {} : { delayMs };
  switch (value.kind) {
    case "store":
      return { kind: "store", ...delay };
    case "hang":
      return { kind: "hang" };
    case "error": {
      const body = value.body;
      if (body !== undefined && !isPostgrestError(body)) {
        throw new BehaviourError("body must have string code and message, and details/hint string or null");
      }
      return { kind: "error", status: optionalStatus(value), body, ...delay };
    }
    case "non-json":
      return nonJsonBehaviour(value, delay);
    default:
      throw new BehaviourError(`unknown insert behaviour kind: ${String(value.kind)}`);
  }
}

/** The "non-json" behaviour is the same for both endpoints: a status, a body and a content type that is not JSON. */
function nonJsonBehaviour(value: Record<string, unknown>, delay: { delayMs?: number }) {
  return {
    kind: "non-json" as const,
    status: optionalStatus(value),
    body: optionalString(value, "body"),
    contentType: optionalString(value, "contentType"),
    ...delay,
  };
}

export function parseFunctionBehaviour(value: unknown): FunctionBehaviour {
  if (!isRecord(value)) throw new BehaviourError("behaviour must be a JSON object");
  const delayMs = optionalNumber(value, "delayMs");
  const delay = delayMs === undefined ? {} : { delayMs };
  switch (value.kind) {
    case "text":
      return { kind: "text", text: optionalString(value, "text"), ...delay };
    case "data-error":
      return { kind: "data-error", error: optionalString(value, "error"), ...delay };
    case "json":
      if (!("body" in value)) throw new BehaviourError("json behaviour needs a body");
      return { kind: "json", status: optionalStatus(value), body: value.body, ...delay };
    case "http-error":
      return { kind: "http-error", status: optionalStatus(value), body: value.body, ...delay };
    case "non-json":
      return nonJsonBehaviour(value, delay);
    case "hang":
      return { kind: "hang" };
    default:
      throw new BehaviourError(`unknown function behaviour kind: ${String(value.kind)}`);
  }
}

function isPostgrestError(value: unknown): value is PostgrestErrorBody {
  return (
    isRecord(value) &&
    typeof value.code === "string" &&
    typeof value.message === "string" &&
    (value.details === null || typeof value.details === "string") &&
    (value.hint === null || typeof value.hint === "string")
  );
}

function pgError(code: string, message: string, details: string | null = null, hint: string | null = null) {
  return { code, details, hint, message } satisfies PostgrestErrorBody;
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status: statusCode, headers: { "content-type": JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

// PostgREST reports a permission failure to the anon role as 401 (403 is for signed-in roles).
const PERMISSION_DENIED = json(401, pgError("42501", `permission denied for table ${TABLE}`));

/** Mirrors the migration: RLS policy first, then the check constraint, then the unique index. */
function checkRow(row: Record<string, unknown>, taken: Set<string>): Reply | null {
  for (const column of Object.keys(row)) {
    if (column === "email") continue;
    // id and created_at exist but anon may only insert email (column-level grant).
    if (column === "id" || column === "created_at") return PERMISSION_DENIED;
    return json(400, pgError("PGRST204", `Could not find the '${column}' column of '${TABLE}' in the schema cache`));
  }
  const raw = row.email;
  if (raw === undefined || raw === null) {
    return json(
      400,
      pgError(
        "23502",
        `null value in column "email" of relation "${TABLE}" violates not-null constraint`,
        "Failing row contains (null).",
      ),
    );
  }
  // PostgREST lets Postgres coerce JSON scalars into the text column.
  const email = typeof raw === "string" ? raw : JSON.stringify(raw);
  const length = [...email].length;
  if (!(length <= MAX_EMAIL_LENGTH && email.indexOf("@") > 0)) {
    return json(401, pgError("42501", `new row violates row-level security policy for table "${TABLE}"`));
  }
  if (/\s/.test(email) || !/^[^@]+@[^@]+$/.test(email)) {
    return json(
      400,
      pgError(
        "23514",
        `new row for relation "${TABLE}" violates check constraint "${CHECK_CONSTRAINT}"`,
        `Failing row contains (${email}).`,
      ),
    );
  }
  const key = email.toLowerCase();
  if (taken.has(key)) {
    return json(
      409,
      pgError(
        "23505",
        `duplicate key value violates unique constraint "${UNIQUE_INDEX}"`,
        `Key (lower(email))=(${key}) already exists.`,
      ),
    );
  }
  taken.add(key);
  return null;
}

function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export async function startStubSupabase(options: StubOptions = {}): Promise<StubSupabase> {
  const anonKey = options.anonKey ?? FAKE_ANON_KEY;
  const host = options.host ?? "127.0.0.1";

  let requests: RecordedRequest[] = [];
  let inserts: Record<string, unknown>[] = [];
  let insertCalls = 0;
  let functionCalls = 0;
  // Insertion order is kept for reporting; the lower-cased keys give the case-insensitive uniqueness.
  let stored = new Map<string, string>();
  // Lower-cased address → its unsubscribe token (the column default of the unsubscribe migration).
  let tokens = new Map<string, string>();
  let unsubscribeCalls = 0;
  let insertBehaviour: InsertBehaviour = DEFAULT_INSERT_BEHAVIOUR;
  let functionBehaviour: FunctionBehaviour = DEFAULT_FUNCTION_BEHAVIOUR;
  const hung = new Set<ServerResponse>();
  const confirmations =
    options.confirmations?.({
      has: (lower) => stored.has(lower),
      add: (email) => {
        stored.set(email.toLowerCase(), email);
        tokens.set(email.toLowerCase(), randomUUID());
      },
      remove: (lower) => {
        stored.delete(lower);
        tokens.delete(lower);
      },
    }) ?? null;
  const timers = new Set<NodeJS.Timeout>();

  function send(response: ServerResponse, reply: Reply, delayMs = 0): void {
    const write = () => {
      if (response.destroyed || response.writableEnded) return;
      const body = reply.body ?? "";
      // An explicit length avoids chunked encoding, which the real services do not use for these tiny bodies.
      const length = { "content-length": String(Buffer.byteLength(body)) };
      response.writeHead(reply.status, { ...CORS_HEADERS, ...reply.headers, ...length });
      response.end(body);
    };
    if (delayMs <= 0) return write();
    const timer = setTimeout(() => {
      timers.delete(timer);
      write();
    }, delayMs);
    timers.add(timer);
  }

  function hang(response: ServerResponse): void {
    hung.add(response);
    response.on("close", () => hung.delete(response));
  }

  function dropHung(): void {
    for (const response of hung) response.destroy();
    hung.clear();
  }

  function state(): StubState {
    return {
      functionCalls,
      insertCalls,
      inserts: structuredClone(inserts),
      storedEmails: [...stored.values()],
      insertBehaviour,
      functionBehaviour,
      requests: structuredClone(requests),
    };
  }

  function reset(): void {
    requests = [];
    inserts = [];
    insertCalls = 0;
    functionCalls = 0;
    stored = new Map();
    tokens = new Map();
    confirmations?.reset();
    unsubscribeCalls = 0;
    insertBehaviour = DEFAULT_INSERT_BEHAVIOUR;
    functionBehaviour = DEFAULT_FUNCTION_BEHAVIOUR;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    dropHung();
  }

  function seedEmails(...emails: string[]): void {
    for (const email of emails) {
      stored.set(email.toLowerCase(), email);
      tokens.set(email.toLowerCase(), randomUUID());
    }
  }

  function handleInsert(response: ServerResponse, request: RecordedRequest): void {
    insertCalls += 1;
    const parsed = parseJson(request.body);
    const rows = parsed.ok ? (Array.isArray(parsed.value) ? parsed.value : [parsed.value]) : [];
    const valid = parsed.ok && rows.length > 0 && rows.every(isRecord);
    if (valid) inserts.push(...(rows as Record<string, unknown>[]));

    const behaviour = insertBehaviour;
    if (behaviour.kind === "hang") return hang(response);
    const delay = behaviour.delayMs;
    if (behaviour.kind === "error") {
      const body = behaviour.body ?? pgError("XX000", "internal error", null, null);
      return send(response, json(behaviour.status ?? 500, body), delay);
    }
    if (behaviour.kind === "non-json") {
      const reply = {
        status: behaviour.status ?? 502,
        headers: { "content-type": behaviour.contentType ?? "text/html" },
        body: behaviour.body ?? GATEWAY_HTML,
      };
      return send(response, reply, delay);
    }

    if (!valid) return send(response, json(400, pgError("PGRST102", "Empty or invalid json")), delay);
    // Returning the row needs SELECT, which anon does not have.
    if (/return=representation/.test(request.headers.prefer ?? "")) return send(response, PERMISSION_DENIED, delay);

    // A statement is all or nothing: check every row against a copy before committing any of them.
    const taken = new Set(stored.keys());
    for (const row of rows as Record<string, unknown>[]) {
      const failure = checkRow(row, taken);
      if (failure) return send(response, failure, delay);
    }
    for (const row of rows as Record<string, unknown>[]) {
      const email = String(row.email);
      stored.set(email.toLowerCase(), email);
      tokens.set(email.toLowerCase(), randomUUID());
      confirmations?.directInsert(email);
    }
    // Without `Prefer: return=representation` PostgREST answers 201 with an empty body.
    send(response, { status: 201, headers: { "content-range": "*/*" } }, delay);
  }

  function handleFunction(response: ServerResponse): void {
    functionCalls += 1;
    const behaviour = functionBehaviour;
    if (behaviour.kind === "hang") return hang(response);
    const delay = behaviour.delayMs;
    switch (behaviour.kind) {
      case "text":
        return send(response, json(200, { text: behaviour.text ?? DEFAULT_TWEET_TEXT }), delay);
      case "data-error":
        return send(response, json(200, { error: behaviour.error ?? "Failed to fetch tweet" }), delay);
      case "json":
        return send(response, json(behaviour.status ?? 200, behaviour.body), delay);
      case "http-error":
        return send(
          response,
          json(behaviour.status ?? 500, behaviour.body ?? { error: "Internal Server Error" }),
          delay,
        );
      case "non-json":
        return send(
          response,
          {
            status: behaviour.status ?? 502,
            headers: { "content-type": behaviour.contentType ?? "text/html" },
            body: behaviour.body ?? GATEWAY_HTML,
          },
          delay,
        );
    }
  }

  /**
   * POST /rest/v1/rpc/unsubscribe_newsletter {"token": …}: deletes the row holding the token and answers whether it
   * did (`true` or `false`, as PostgREST sends a boolean function's result). The insert behaviour's errors and hangs
   * apply here too: both are PostgREST.
   */
  function handleRpc(response: ServerResponse, request: RecordedRequest, name: string): void {
    if (rejectKey(response, request)) return;
    const confirmReply = request.method === "POST" ? confirmations?.handle(name, request.body) : null;
    if (confirmReply) return send(response, json(confirmReply.status, confirmReply.body));
    if (name !== UNSUBSCRIBE_FUNCTION || request.method !== "POST") {
      return send(
        response,
        json(
          404,
          pgError("PGRST202", `Could not find the function public.${name} without parameters in the schema cache`),
        ),
      );
    }
    unsubscribeCalls += 1;
    const behaviour = insertBehaviour;
    if (behaviour.kind === "hang") return hang(response);
    if (behaviour.kind === "error") {
      return send(
        response,
        json(behaviour.status ?? 500, behaviour.body ?? pgError("XX000", "internal error")),
        behaviour.delayMs,
      );
    }
    const parsed = parseJson(request.body);
    const token = parsed.ok && isRecord(parsed.value) ? parsed.value.token : undefined;
    if (typeof token !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(token)) {
      return send(response, json(400, pgError("22P02", `invalid input syntax for type uuid: "${String(token)}"`)));
    }
    let removed = false;
    for (const [email, held] of tokens) {
      if (held === token.toLowerCase()) {
        tokens.delete(email);
        stored.delete(email);
        removed = true;
      }
    }
    send(response, json(200, removed), behaviour.kind === "store" ? behaviour.delayMs : undefined);
  }

  /** The API gateway rejects a missing or foreign key before PostgREST sees the request; true when it did. */
  function rejectKey(response: ServerResponse, request: RecordedRequest): boolean {
    const apikey = request.headers.apikey;
    if (apikey === undefined) {
      send(
        response,
        json(401, {
          message: "No API key found in request",
          hint: "No `apikey` request header or url param was found.",
        }),
      );
      return true;
    }
    if (apikey !== anonKey) {
      send(
        response,
        json(401, { message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." }),
      );
      return true;
    }
    return false;
  }

  /**
   * A read of the table with the service role key, as PostgREST answers it: `select` columns, a `state=eq.<state>`
   * filter, rows in id order, `offset` and `limit` (supabase-js's range()).
   */
  function readRows(query: string): Record<string, unknown>[] {
    const params = new URLSearchParams(query);
    const wanted = params.get("state")?.replace(/^eq\./, "");
    const columns = (params.get("select") ?? "email,unsubscribe_token,state").split(",");
    const rows = [...stored].map(([lower, email], index) => ({
      id: index + 1,
      email,
      unsubscribe_token: tokens.get(lower) ?? null,
      state: confirmations?.stateOf(email) ?? "confirmed",
    }));
    const offset = Number(params.get("offset") ?? 0);
    const limit = Number(params.get("limit") ?? rows.length);
    return rows
      .filter((row) => !wanted || row.state === wanted)
      .slice(offset, offset + limit)
      .map((row) => Object.fromEntries(columns.map((column) => [column, row[column as keyof typeof row]])));
  }

  function handleRest(response: ServerResponse, request: RecordedRequest, resource: string): void {
    // The API gateway rejects a missing or foreign key before PostgREST sees the request.
    const apikey = request.headers.apikey;
    if (options.serviceRoleKey && apikey === options.serviceRoleKey && resource === TABLE && request.method === "GET") {
      return send(response, json(200, readRows(request.query)));
    }
    if (apikey === undefined) {
      return send(
        response,
        json(401, {
          message: "No API key found in request",
          hint: "No `apikey` request header or url param was found.",
        }),
      );
    }
    if (apikey !== anonKey) {
      return send(
        response,
        json(401, { message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." }),
      );
    }
    if (resource !== TABLE) {
      return send(
        response,
        json(404, pgError("PGRST205", `Could not find the table 'public.${resource}' in the schema cache`)),
      );
    }
    if (request.method !== "POST") {
      // No select/update/delete grant for anon: the list can never be read back.
      return send(response, PERMISSION_DENIED);
    }
    handleInsert(response, request);
  }

  function handleFunctions(response: ServerResponse, request: RecordedRequest, name: string): void {
    // Functions deployed with JWT verification (the default) need a valid Bearer token.
    const authorization = request.headers.authorization;
    if (authorization === undefined) {
      return send(response, json(401, { code: 401, message: "Missing authorization header" }));
    }
    if (authorization !== `Bearer ${anonKey}`) {
      return send(response, json(401, { code: 401, message: "Invalid JWT" }));
    }
    if (name !== FUNCTION_NAME) {
      return send(response, json(404, { code: "NOT_FOUND", message: "Requested function was not found" }));
    }
    handleFunction(response);
  }

  function handleControl(response: ServerResponse, request: RecordedRequest, action: string): void {
    const ok: Reply = { status: 204 };
    try {
      if (request.method === "GET" && action === "state") return send(response, json(200, state()));
      if (request.method !== "POST") return send(response, json(405, { error: "use POST (or GET /__stub/state)" }));
      const parsed = request.body === "" ? { ok: true as const, value: undefined } : parseJson(request.body);
      if (!parsed.ok) return send(response, json(400, { error: "body must be JSON" }));
      switch (action) {
        case "reset":
          reset();
          return send(response, ok);
        case "insert":
          insertBehaviour = parseInsertBehaviour(parsed.value);
          return send(response, ok);
        case "function":
          functionBehaviour = parseFunctionBehaviour(parsed.value);
          return send(response, ok);
        case "emails": {
          const emails = isRecord(parsed.value) ? parsed.value.emails : undefined;
          if (!Array.isArray(emails) || !emails.every((email) => typeof email === "string")) {
            return send(response, json(400, { error: 'body must be {"emails": string[]}' }));
          }
          seedEmails(...emails);
          return send(response, ok);
        }
        default:
          return send(response, json(404, { error: `unknown control action: ${action}` }));
      }
    } catch (error) {
      if (error instanceof BehaviourError) return send(response, json(400, { error: error.message }));
      throw error;
    }
  }

  const server = createServer((incoming, response) => {
    void (async () => {
      const url = new URL(incoming.url ?? "/", "http://stub.invalid");
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: url.pathname,
        query: url.search,
        headers: headerRecord(incoming),
        body: await readBody(incoming),
      };

      if (recorded.method === "OPTIONS") {
        const allowHeaders = recorded.headers["access-control-request-headers"] ?? "*";
        return send(response, { status: 200, headers: { "access-control-allow-headers": allowHeaders } });
      }

      const control = /^\/__stub\/([^/]+)$/.exec(url.pathname);
      if (control) return handleControl(response, recorded, control[1] ?? "");

      requests.push(recorded);
      const rpc = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(url.pathname);
      if (rpc) return handleRpc(response, recorded, decodeURIComponent(rpc[1] ?? ""));
      const rest = /^\/rest\/v1\/([^/]+)$/.exec(url.pathname);
      if (rest) return handleRest(response, recorded, decodeURIComponent(rest[1] ?? ""));
      const fn = /^\/functions\/v1\/([^/]+)$/.exec(url.pathname);
      if (fn) return handleFunctions(response, recorded, decodeURIComponent(fn[1] ?? ""));
      send(response, json(404, { message: "no Route matched with those values" }));
    })().catch((error: unknown) => {
      // A bug in the stub should fail the test loudly, not leave the client waiting.
      console.error("stub-supabase:", error);
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end("stub-supabase internal error");
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  return {
    url,
    anonKey,
    get requests() {
      return requests;
    },
    get functionCalls() {
      return functionCalls;
    },
    get insertCalls() {
      return insertCalls;
    },
    get inserts() {
      return inserts;
    },
    get unsubscribeCalls() {
      return unsubscribeCalls;
    },
    tokenOf(email: string) {
      return tokens.get(email.toLowerCase());
    },
    get storedEmails() {
      return [...stored.values()];
    },
    setInsertBehaviour(behaviour) {
      insertBehaviour = parseInsertBehaviour(behaviour);
    },
    setFunctionBehaviour(behaviour) {
      functionBehaviour = parseFunctionBehaviour(behaviour);
    },
    seedEmails,
    reset,
    state,
    confirmations,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      dropHung();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would otherwise hold close() open until they time out.
        server.closeAllConnections();
      });
    },
  };
}
