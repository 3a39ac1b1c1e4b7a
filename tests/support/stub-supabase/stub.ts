/**
 * A real HTTP server in front of the real migrations: Supabase's API as the site's unmodified supabase-js client
 * reaches it (PostgREST's table and function calls, the get-latest-tweet edge function), so the list is tested end to
 * end without a network and with no rule of its own here: PostgREST's calls run on PGlite (database.ts, postgrest.ts).
 * What a test scripts in front of it (a failure, a delay, a hang, the edge function's answers) is HTTP only.
 *
 * In parts: its names and shapes (types.ts), the scripted behaviours (behaviours.ts), the replies (replies.ts), the
 * services (handlers.ts); here, the server, the /__stub/ control API and the handle tests hold. Run directly by `node`
 * (type stripping) from main.ts, so every part stays within erasable TypeScript (no enums, namespaces or parameter
 * properties, type-only imports marked `type`) and imports its siblings with their `.ts` extension.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BehaviourError,
  DEFAULT_FUNCTION_BEHAVIOUR,
  DEFAULT_INSERT_BEHAVIOUR,
  isRecord,
  parseFunctionBehaviour,
  parseInsertBehaviour,
} from "./behaviours.ts";
import { emptyList, rowOf, rows, seed, startDatabase } from "./database.ts";
import { handleFunctions, handleRest, type StubData, type StubIo } from "./handlers.ts";
import { CORS_HEADERS, headerRecord, json, parseJson, readBody, type Reply } from "./replies.ts";
import {
  FAKE_ANON_KEY,
  type RecordedRequest,
  STUB_SERVICE_ROLE_KEY,
  type StubOptions,
  type StubState,
  type StubSupabase,
} from "./types.ts";

export * from "./types.ts";
export type { SubscriberRow } from "./database.ts";
export { parseFunctionBehaviour, parseInsertBehaviour } from "./behaviours.ts";

/** A stand-in that has seen nothing and answers as the real services do. */
const emptyLog = (): Omit<StubData, "anonKey" | "serviceRoleKey" | "db"> => ({
  requests: [],
  inserts: [],
  insertCalls: 0,
  functionCalls: 0,
  unsubscribeCalls: 0,
  insertBehaviour: DEFAULT_INSERT_BEHAVIOUR,
  functionBehaviour: DEFAULT_FUNCTION_BEHAVIOUR,
});

export async function startStubSupabase(options: StubOptions = {}): Promise<StubSupabase> {
  const host = options.host ?? "127.0.0.1";
  const db = options.database === false ? null : await startDatabase(options.signingKey);
  const data: StubData = {
    anonKey: options.anonKey ?? FAKE_ANON_KEY,
    serviceRoleKey: options.serviceRoleKey ?? STUB_SERVICE_ROLE_KEY,
    db,
    ...emptyLog(),
  };
  const database = () => {
    if (!db) throw new Error("this stand-in was started without its database ({ database: false })");
    return db;
  };
  const hung = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  const io: StubIo = {
    send(response, reply, delayMs = 0) {
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
    },
    hang(response) {
      hung.add(response);
      response.on("close", () => hung.delete(response));
    },
  };

  function dropPending(): void {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const response of hung) response.destroy();
    hung.clear();
  }

  const storedEmails = async () => (db ? (await rows(db)).map((row) => row.email) : []);

  async function state(): Promise<StubState> {
    return {
      functionCalls: data.functionCalls,
      insertCalls: data.insertCalls,
      inserts: structuredClone(data.inserts),
      storedEmails: await storedEmails(),
      insertBehaviour: data.insertBehaviour,
      functionBehaviour: data.functionBehaviour,
      requests: structuredClone(data.requests),
    };
  }

  async function reset(): Promise<void> {
    Object.assign(data, emptyLog());
    dropPending();
    if (db) await emptyList(db);
  }

  const seedEmails = (...emails: string[]) => seed(database(), emails);

  async function handleControl(response: ServerResponse, request: RecordedRequest, action: string): Promise<void> {
    const ok: Reply = { status: 204 };
    try {
      if (request.method === "GET" && action === "state") return io.send(response, json(200, await state()));
      if (request.method !== "POST") return io.send(response, json(405, { error: "use POST (or GET /__stub/state)" }));
      const parsed = request.body === "" ? { ok: true as const, value: undefined } : parseJson(request.body);
      if (!parsed.ok) return io.send(response, json(400, { error: "body must be JSON" }));
      switch (action) {
        case "reset":
          await reset();
          return io.send(response, ok);
        case "insert":
          data.insertBehaviour = parseInsertBehaviour(parsed.value);
          return io.send(response, ok);
        case "function":
          data.functionBehaviour = parseFunctionBehaviour(parsed.value);
          return io.send(response, ok);
        case "emails": {
          const emails = isRecord(parsed.value) ? parsed.value.emails : undefined;
          if (!Array.isArray(emails) || !emails.every((email) => typeof email === "string")) {
            return io.send(response, json(400, { error: 'body must be {"emails": string[]}' }));
          }
          await seedEmails(...emails);
          return io.send(response, ok);
        }
        default:
          return io.send(response, json(404, { error: `unknown control action: ${action}` }));
      }
    } catch (error) {
      if (error instanceof BehaviourError) return io.send(response, json(400, { error: error.message }));
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
        return io.send(response, { status: 200, headers: { "access-control-allow-headers": allowHeaders } });
      }

      const control = /^\/__stub\/([^/]+)$/.exec(url.pathname);
      if (control) return await handleControl(response, recorded, control[1] ?? "");

      data.requests.push(recorded);
      const rest = /^\/rest\/v1\/(.+)$/.exec(url.pathname);
      if (rest) return await handleRest(data, io, response, recorded, rest[1] ?? "");
      const fn = /^\/functions\/v1\/([^/]+)$/.exec(url.pathname);
      if (fn) return handleFunctions(data, io, response, recorded, decodeURIComponent(fn[1] ?? ""));
      io.send(response, json(404, { message: "no Route matched with those values" }));
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
    anonKey: data.anonKey,
    serviceRoleKey: data.serviceRoleKey,
    get db() {
      return database();
    },
    get requests() {
      return data.requests;
    },
    get functionCalls() {
      return data.functionCalls;
    },
    get insertCalls() {
      return data.insertCalls;
    },
    get inserts() {
      return data.inserts;
    },
    get unsubscribeCalls() {
      return data.unsubscribeCalls;
    },
    callsOf: (name) => data.requests.filter((request) => request.path === `/rest/v1/rpc/${name}`).length,
    storedEmails,
    rowOf: (email) => rowOf(database(), email),
    tokenOf: async (email) => (await rowOf(database(), email))?.unsubscribe_token,
    suppressedReason: async (email) => (await rowOf(database(), email))?.suppressed_reason ?? null,
    setInsertBehaviour(behaviour) {
      data.insertBehaviour = parseInsertBehaviour(behaviour);
    },
    setFunctionBehaviour(behaviour) {
      data.functionBehaviour = parseFunctionBehaviour(behaviour);
    },
    seedEmails,
    reset,
    state,
    async close() {
      dropPending();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would otherwise hold close() open until they time out.
        server.closeAllConnections();
      });
      await db?.close();
    },
  };
}
