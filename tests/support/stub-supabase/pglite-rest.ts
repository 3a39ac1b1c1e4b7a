/**
 * A thin stand-in of Supabase's HTTP API in front of the real migrations on PGlite: the PostgREST calls supabase-js
 * makes for this site (a row inserted, a table read with filters and a range, a database function called) become the
 * SQL PostgREST would run, as the role the key names (anon or service_role). It carries no rule of its own: every
 * answer is the migrations'. The older stand-in beside it (stub.ts) scripts failures and keeps its own copy.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { asRole } from "../pglite-migrations";

export interface PgliteRest {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const quoted = (name: string) => {
  if (!IDENTIFIER.test(name)) throw new RestError(400, "PGRST100", `"${name}" is not a name`);
  return `"${name}"`;
};

class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** PostgREST's HTTP status for a Postgres error. */
function fromPostgres(error: { code?: string; message?: string }, role: string): RestError {
  const code = error.code ?? "XX000";
  const status =
    code === "42501" ? (role === "anon" ? 401 : 403) : code === "23505" ? 409 : code === "42883" ? 404 : 400;
  return new RestError(status, code === "42883" ? "PGRST202" : code, error.message ?? "error");
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : {};
}

/** A filter of PostgREST's query string (`state=eq.confirmed`, `suppressed_reason=is.null`, `…=not.is.null`). */
function condition(column: string, expression: string, values: unknown[]): string {
  const negated = expression.startsWith("not.");
  const [operator, ...rest] = (negated ? expression.slice(4) : expression).split(".");
  const operand = rest.join(".");
  let sql: string;
  if (operator === "eq" || operator === "neq") {
    values.push(operand);
    sql = `${quoted(column)} ${operator === "eq" ? "=" : "<>"} $${values.length}`;
  } else if (operator === "is" && ["null", "true", "false"].includes(operand)) sql = `${quoted(column)} is ${operand}`;
  else throw new RestError(400, "PGRST100", `unknown filter ${expression}`);
  return negated ? `not (${sql})` : sql;
}

function selectSql(table: string, params: URLSearchParams) {
  const values: unknown[] = [];
  const columns = (params.get("select") ?? "*").split(",").map((name) => (name === "*" ? "*" : quoted(name.trim())));
  const where: string[] = [];
  const order: string[] = [];
  for (const [key, value] of params) {
    if (key === "select" || key === "offset" || key === "limit") continue;
    if (key === "order") {
      for (const part of value.split(",")) {
        const [name, direction = "asc"] = part.split(".");
        order.push(`${quoted(name!)} ${direction === "desc" ? "desc" : "asc"}`);
      }
    } else where.push(condition(key, value, values));
  }
  const limit = params.get("limit");
  const offset = params.get("offset");
  return {
    sql:
      `select ${columns.join(", ")} from public.${quoted(table)}` +
      (where.length ? ` where ${where.join(" and ")}` : "") +
      (order.length ? ` order by ${order.join(", ")}` : "") +
      (limit ? ` limit ${Number(limit)}` : "") +
      (offset ? ` offset ${Number(offset)}` : ""),
    values,
  };
}

export async function startPgliteRest(db: PGlite, keys = { anon: "anon-key", service: "service-key" }) {
  const roleOf = (request: IncomingMessage) => {
    const key = request.headers.apikey;
    return key === keys.anon ? "anon" : key === keys.service ? "service_role" : null;
  };

  async function answer(request: IncomingMessage): Promise<{ status: number; json?: unknown }> {
    const role = roleOf(request);
    if (!role) return { status: 401, json: { message: "Invalid API key" } };
    const url = new URL(request.url ?? "/", "http://stand-in");
    const rpc = /^\/rest\/v1\/rpc\/([a-z_][a-z0-9_]*)$/.exec(url.pathname);
    const table = /^\/rest\/v1\/([a-z_][a-z0-9_]*)$/.exec(url.pathname);
    try {
      if (rpc && request.method === "POST") {
        const args = (await body(request)) as Record<string, unknown>;
        const names = Object.keys(args);
        const call = `public.${quoted(rpc[1]!)}(${names.map((name, n) => `${quoted(name)} => $${n + 1}`).join(", ")})`;
        const result = await asRole(db, role, (tx) =>
          tx.query<{ result: unknown }>(
            `select ${call} as result`,
            names.map((name) => args[name]),
          ),
        );
        return { status: 200, json: result.rows[0]?.result ?? null };
      }
      if (table && request.method === "POST") {
        const rows = [(await body(request)) as Record<string, unknown>].flat();
        for (const row of rows) {
          const names = Object.keys(row);
          const sql =
            `insert into public.${quoted(table[1]!)} (${names.map(quoted).join(", ")}) ` +
            `values (${names.map((_, n) => `$${n + 1}`).join(", ")})`;
          await asRole(db, role, (tx) =>
            tx.query(
              sql,
              names.map((name) => row[name]),
            ),
          );
        }
        return { status: 201 };
      }
      if (table && request.method === "GET") {
        const { sql, values } = selectSql(table[1]!, url.searchParams);
        const result = await asRole(db, role, (tx) => tx.query(sql, values));
        return { status: 200, json: result.rows };
      }
      return { status: 404, json: { message: `no route ${request.method} ${url.pathname}` } };
    } catch (error) {
      const failure = error instanceof RestError ? error : fromPostgres(error as { code?: string }, role);
      return {
        status: failure.status,
        json: { code: failure.code, message: failure.message, details: null, hint: null },
      };
    }
  }

  const server = createServer((request, response) => {
    answer(request).then(
      ({ status, json }) => {
        const text = json === undefined ? "" : JSON.stringify(json);
        response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        response.end(text);
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    anonKey: keys.anon,
    serviceRoleKey: keys.service,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } satisfies PgliteRest;
}
