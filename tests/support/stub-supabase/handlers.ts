// The Supabase stub's three services (tests/support/stub-supabase/stub.ts): PostgREST's insert into the newsletter table,
// its unsubscribe function, and the get-latest-tweet edge function, each behind the gateway's key check.
// Run by plain node too (main.ts): erasable TypeScript only, type-only imports marked `type`.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { isRecord } from "./behaviours.ts";
import type { ConfirmRpcs } from "./confirm.ts";
import type { ImportRpc } from "./import.ts";
import type { SuppressionRpcs } from "./suppression.ts";
import { checkRow, GATEWAY_HTML, json, parseJson, PERMISSION_DENIED, pgError, type Reply } from "./replies.ts";
import {
  DEFAULT_LATEST_POST_TEXT,
  type FunctionBehaviour,
  FUNCTION_NAME,
  type InsertBehaviour,
  type RecordedRequest,
  TABLE,
  UNSUBSCRIBE_FUNCTION,
} from "./types.ts";

/** What the stub holds: the calls it saw, the "table", and the behaviours the tests scripted. */
export interface StubData {
  readonly anonKey: string;
  requests: RecordedRequest[];
  inserts: Record<string, unknown>[];
  insertCalls: number;
  functionCalls: number;
  unsubscribeCalls: number;
  /** Lower-cased address → the address as sent; insertion order is kept for reporting. */
  stored: Map<string, string>;
  /** Lower-cased address → its unsubscribe token (the column default of the unsubscribe migration). */
  tokens: Map<string, string>;
  insertBehaviour: InsertBehaviour;
  functionBehaviour: FunctionBehaviour;
  /** The double opt-in functions, when the stub was started with them. */
  readonly confirmations: ConfirmRpcs | null;
  /** The key that may read the table (the update command's), when given. */
  readonly serviceRoleKey: string | undefined;
  /** The suppression functions and what they recorded. */
  readonly suppression: SuppressionRpcs;
  /** The import function (the service role's alone) and what it stored. */
  readonly imports: ImportRpc;
}

/** How a handler answers: now or after a delay, or never (until reset or close). */
export interface StubIo {
  send(response: ServerResponse, reply: Reply, delayMs?: number): void;
  hang(response: ServerResponse): void;
}

/** One service behind the gateway, for the resource or function named in the path. */
type Service = (data: StubData, io: StubIo, response: ServerResponse, request: RecordedRequest, name: string) => void;

/** Puts an address in the "table" with a fresh unsubscribe token. */
export function storeEmail(data: StubData, email: string): void {
  data.stored.set(email.toLowerCase(), email);
  data.tokens.set(email.toLowerCase(), randomUUID());
  data.suppression.forget(email);
}

/** A reply for the scripted "non-json" behaviour: a status, a body and a content type that is not JSON. */
function nonJsonReply(behaviour: { status?: number; body?: string; contentType?: string }): Reply {
  return {
    status: behaviour.status ?? 502,
    headers: { "content-type": behaviour.contentType ?? "text/html" },
    body: behaviour.body ?? GATEWAY_HTML,
  };
}

/** The API gateway rejects a missing or foreign key before PostgREST sees the request; true when it did. */
function rejectKey(data: StubData, io: StubIo, response: ServerResponse, request: RecordedRequest): boolean {
  const apikey = request.headers.apikey;
  if (apikey === undefined) {
    io.send(
      response,
      json(401, { message: "No API key found in request", hint: "No `apikey` request header or url param was found." }),
    );
    return true;
  }
  if (apikey !== data.anonKey) {
    io.send(
      response,
      json(401, { message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." }),
    );
    return true;
  }
  return false;
}

function handleInsert(data: StubData, io: StubIo, response: ServerResponse, request: RecordedRequest): void {
  data.insertCalls += 1;
  const parsed = parseJson(request.body);
  const rows = parsed.ok ? (Array.isArray(parsed.value) ? parsed.value : [parsed.value]) : [];
  const valid = parsed.ok && rows.length > 0 && rows.every(isRecord);
  if (valid) data.inserts.push(...(rows as Record<string, unknown>[]));

  const behaviour = data.insertBehaviour;
  if (behaviour.kind === "hang") return io.hang(response);
  const delay = behaviour.delayMs;
  if (behaviour.kind === "error") {
    const body = behaviour.body ?? pgError("XX000", "internal error", null, null);
    return io.send(response, json(behaviour.status ?? 500, body), delay);
  }
  if (behaviour.kind === "non-json") return io.send(response, nonJsonReply(behaviour), delay);

  if (!valid) return io.send(response, json(400, pgError("PGRST102", "Empty or invalid json")), delay);
  // Returning the row needs SELECT, which anon does not have.
  if (/return=representation/.test(request.headers.prefer ?? "")) return io.send(response, PERMISSION_DENIED, delay);

  // A statement is all or nothing: check every row against a copy before committing any of them.
  const taken = new Set(data.stored.keys());
  for (const row of rows as Record<string, unknown>[]) {
    const failure = checkRow(row, taken);
    if (failure) return io.send(response, failure, delay);
  }
  for (const row of rows as Record<string, unknown>[]) {
    storeEmail(data, String(row.email));
    data.confirmations?.directInsert(String(row.email));
  }
  // Without `Prefer: return=representation` PostgREST answers 201 with an empty body.
  io.send(response, { status: 201, headers: { "content-range": "*/*" } }, delay);
}

/**
 * A read of the table with the service role key, as PostgREST answers it: `select` columns, a `state=eq.<state>` and
 * a `suppressed_reason=is.null` or `=not.is.null` filter, rows in id order, `offset` and `limit` (supabase-js's range()).
 */
function readRows(data: StubData, query: string): Record<string, unknown>[] {
  const params = new URLSearchParams(query);
  const wanted = params.get("state")?.replace(/^eq\./, "");
  const suppressedFilter = params.get("suppressed_reason");
  const columns = (params.get("select") ?? "email,unsubscribe_token,state").split(",");
  const rows = [...data.stored].map(([lower, email], index) => ({
    id: index + 1,
    email,
    unsubscribe_token: data.tokens.get(lower) ?? null,
    state: data.confirmations?.stateOf(email) ?? "confirmed",
    suppressed_reason: data.suppression.recordOf(email)?.reason ?? null,
    soft_bounces: data.suppression.recordOf(email)?.softBounces ?? 0,
  }));
  const offset = Number(params.get("offset") ?? 0);
  const limit = Number(params.get("limit") ?? rows.length);
  return rows
    .filter((row) => !wanted || row.state === wanted)
    .filter((row) => suppressedFilter !== "is.null" || row.suppressed_reason === null)
    .filter((row) => suppressedFilter !== "not.is.null" || row.suppressed_reason !== null)
    .slice(offset, offset + limit)
    .map((row) => Object.fromEntries(columns.map((column) => [column, row[column as keyof typeof row]])));
}

/** PostgREST's table endpoint: only the newsletter table, and only inserts (anon has no other grant). */
export const handleRest: Service = (data, io, response, request, resource) => {
  const serviceRole = data.serviceRoleKey !== undefined && request.headers.apikey === data.serviceRoleKey;
  if (serviceRole && resource === TABLE && request.method === "GET") {
    return io.send(response, json(200, readRows(data, request.query)));
  }
  if (rejectKey(data, io, response, request)) return;
  if (resource !== TABLE) {
    return io.send(
      response,
      json(404, pgError("PGRST205", `Could not find the table 'public.${resource}' in the schema cache`)),
    );
  }
  // No select/update/delete grant for anon: the list can never be read back.
  if (request.method !== "POST") return io.send(response, PERMISSION_DENIED);
  handleInsert(data, io, response, request);
};

/**
 * POST /rest/v1/rpc/unsubscribe_newsletter {"token": …}: deletes the row holding the token and answers whether it
 * did (`true` or `false`, as PostgREST sends a boolean function's result). The insert behaviour's errors and hangs
 * apply here too: both are PostgREST.
 */
export const handleRpc: Service = (data, io, response, request, name) => {
  // The gateway lets the service role key through too; the suppression functions trust it without a signature.
  const serviceRole = data.serviceRoleKey !== undefined && request.headers.apikey === data.serviceRoleKey;
  if (!serviceRole && rejectKey(data, io, response, request)) return;
  const suppressionReply = request.method === "POST" ? data.suppression.handle(name, request.body, serviceRole) : null;
  if (suppressionReply) return io.send(response, json(suppressionReply.status, suppressionReply.body));
  const importReply = request.method === "POST" ? data.imports.handle(name, request.body, serviceRole) : null;
  if (importReply) return io.send(response, json(importReply.status, importReply.body));
  const confirmReply = request.method === "POST" ? data.confirmations?.handle(name, request.body) : null;
  if (confirmReply) return io.send(response, json(confirmReply.status, confirmReply.body));
  if (name !== UNSUBSCRIBE_FUNCTION || request.method !== "POST") {
    const message = `Could not find the function public.${name} without parameters in the schema cache`;
    return io.send(response, json(404, pgError("PGRST202", message)));
  }
  data.unsubscribeCalls += 1;
  const behaviour = data.insertBehaviour;
  if (behaviour.kind === "hang") return io.hang(response);
  if (behaviour.kind === "error") {
    const body = behaviour.body ?? pgError("XX000", "internal error");
    return io.send(response, json(behaviour.status ?? 500, body), behaviour.delayMs);
  }
  const parsed = parseJson(request.body);
  const token = parsed.ok && isRecord(parsed.value) ? parsed.value.token : undefined;
  if (typeof token !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(token)) {
    return io.send(response, json(400, pgError("22P02", `invalid input syntax for type uuid: "${String(token)}"`)));
  }
  let removed = false;
  for (const [email, held] of data.tokens) {
    if (held === token.toLowerCase()) {
      data.tokens.delete(email);
      data.stored.delete(email);
      removed = true;
    }
  }
  io.send(response, json(200, removed), behaviour.kind === "store" ? behaviour.delayMs : undefined);
};

/** The edge functions: deployed with JWT verification (the default), so they need a valid Bearer token. */
export const handleFunctions: Service = (data, io, response, request, name) => {
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    return io.send(response, json(401, { code: 401, message: "Missing authorization header" }));
  }
  if (authorization !== `Bearer ${data.anonKey}`) {
    return io.send(response, json(401, { code: 401, message: "Invalid JWT" }));
  }
  if (name !== FUNCTION_NAME) {
    return io.send(response, json(404, { code: "NOT_FOUND", message: "Requested function was not found" }));
  }
  data.functionCalls += 1;
  const behaviour = data.functionBehaviour;
  if (behaviour.kind === "hang") return io.hang(response);
  const delay = behaviour.delayMs;
  switch (behaviour.kind) {
    case "text":
      return io.send(response, json(200, { text: behaviour.text ?? DEFAULT_LATEST_POST_TEXT }), delay);
    case "data-error":
      return io.send(response, json(200, { error: behaviour.error ?? "Failed to fetch tweet" }), delay);
    case "json":
      return io.send(response, json(behaviour.status ?? 200, behaviour.body), delay);
    case "http-error": {
      const body = behaviour.body ?? { error: "Internal Server Error" };
      return io.send(response, json(behaviour.status ?? 500, body), delay);
    }
    case "non-json":
      return io.send(response, nonJsonReply(behaviour), delay);
  }
};
