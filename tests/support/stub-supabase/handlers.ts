// The Supabase stand-in's services (tests/support/stub-supabase/stub.ts): the API gateway's key check, PostgREST in
// front of the real migrations (postgrest.ts) with the failures, delays and hangs a test scripts, and the
// get-latest-tweet edge function. Run by plain node too (main.ts): erasable TypeScript only, type-only imports marked
// `type`.
import type { ServerResponse } from "node:http";
import type { PGlite } from "@electric-sql/pglite";
import { isRecord } from "./behaviours.ts";
import { postgrest, type Role } from "./postgrest.ts";
import { GATEWAY_HTML, json, parseJson, pgError, type Reply } from "./replies.ts";
import {
  DEFAULT_LATEST_POST_TEXT,
  type FunctionBehaviour,
  FUNCTION_NAME,
  type InsertBehaviour,
  type RecordedRequest,
  TABLE,
  UNSUBSCRIBE_FUNCTION,
} from "./types.ts";

/** What the stand-in holds beside its database: the calls it saw and the behaviours the tests scripted. */
export interface StubData {
  readonly anonKey: string;
  readonly serviceRoleKey: string;
  /** Null when started without one (the edge function's tests). */
  readonly db: PGlite | null;
  requests: RecordedRequest[];
  inserts: Record<string, unknown>[];
  insertCalls: number;
  functionCalls: number;
  unsubscribeCalls: number;
  insertBehaviour: InsertBehaviour;
  functionBehaviour: FunctionBehaviour;
}

/** How a handler answers: now or after a delay, or never (until reset or close). */
export interface StubIo {
  send(response: ServerResponse, reply: Reply, delayMs?: number): void;
  hang(response: ServerResponse): void;
}

/** A reply for the scripted "non-json" behaviour: a status, a body and a content type that is not JSON. */
function nonJsonReply(behaviour: { status?: number; body?: string; contentType?: string }): Reply {
  return {
    status: behaviour.status ?? 502,
    headers: { "content-type": behaviour.contentType ?? "text/html" },
    body: behaviour.body ?? GATEWAY_HTML,
  };
}

/** The API gateway: the key names the role PostgREST runs as; a missing or foreign key never reaches it. */
function roleOf(data: StubData, io: StubIo, response: ServerResponse, request: RecordedRequest): Role | null {
  const apikey = request.headers.apikey;
  if (apikey === data.anonKey) return "anon";
  if (apikey === data.serviceRoleKey) return "service_role";
  const reply =
    apikey === undefined
      ? { message: "No API key found in request", hint: "No `apikey` request header or url param was found." }
      : { message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." };
  io.send(response, json(401, reply));
  return null;
}

/** What the request says for the counters the tests read (the rows an insert received, a function's calls). */
function count(data: StubData, request: RecordedRequest, resource: string): void {
  if (resource === TABLE && request.method === "POST") {
    data.insertCalls += 1;
    const parsed = parseJson(request.body);
    const rows = parsed.ok ? [parsed.value].flat() : [];
    if (rows.every(isRecord)) data.inserts.push(...rows);
  }
  if (resource === `rpc/${UNSUBSCRIBE_FUNCTION}`) data.unsubscribeCalls += 1;
}

/** PostgREST (/rest/v1/<resource>): the scripted behaviour first, then the database's own answer. */
export async function handleRest(
  data: StubData,
  io: StubIo,
  response: ServerResponse,
  request: RecordedRequest,
  resource: string,
): Promise<void> {
  const role = roleOf(data, io, response, request);
  if (!role) return;
  count(data, request, resource);
  const behaviour = data.insertBehaviour;
  if (behaviour.kind === "hang") return io.hang(response);
  const delay = behaviour.delayMs;
  if (behaviour.kind === "error") {
    const body = behaviour.body ?? pgError("XX000", "internal error");
    return io.send(response, json(behaviour.status ?? 500, body), delay);
  }
  if (behaviour.kind === "non-json") return io.send(response, nonJsonReply(behaviour), delay);
  if (!data.db) {
    return io.send(response, json(503, { message: "this stand-in was started without its database" }), delay);
  }
  io.send(response, await postgrest(data.db, role, request, resource), delay);
}

/** The edge functions: deployed with JWT verification (the default), so they need a valid Bearer token. */
export function handleFunctions(
  data: StubData,
  io: StubIo,
  response: ServerResponse,
  request: RecordedRequest,
  name: string,
): void {
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
}
