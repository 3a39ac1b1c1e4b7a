/**
 * PostgREST in front of the stand-in's database: the calls supabase-js makes for this site (a row inserted, a table read
 * with filters, an order and a range, a database function called) become the SQL PostgREST runs, as the role the key
 * names, one transaction per request; Postgres's errors come back as PostgREST words them. It carries no rule of the
 * list: every answer is the migrations'.
 *
 * Run by `node` through stub.ts too: erasable TypeScript only.
 */
import type { PGlite } from "@electric-sql/pglite";
import { asRole } from "../pglite-migrations.ts";
import { isRecord } from "./behaviours.ts";
import { json, parseJson, pgError, type Reply } from "./replies.ts";
import type { RecordedRequest } from "./types.ts";

export type Role = "anon" | "service_role";

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A request PostgREST refuses before it reaches the database, with its own code. */
class Refusal extends Error {
  readonly reply: Reply;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.reply = json(status, pgError(code, message));
  }
}

const quoted = (name: string) => {
  if (!IDENTIFIER.test(name)) throw new Refusal(400, "PGRST100", `"${name}" is not a column or function name`);
  return `"${name}"`;
};

/** A JSON value as a query parameter: Postgres casts the text to the column's or argument's type. */
const parameter = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === "object" ? JSON.stringify(value) : String(value);

/** PostgREST's HTTP status for a Postgres error (its documented table, for the codes this site can meet). */
function statusOf(code: string, role: Role): number {
  if (code === "42501") return role === "anon" ? 401 : 403;
  if (code === "23505" || code === "23503") return 409;
  if (code === "42883" || code === "42P01") return 404;
  if (code.startsWith("XX") || code.startsWith("53") || code.startsWith("58")) return 500;
  return 400;
}

interface PostgresError {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

function fromPostgres(error: PostgresError, role: Role, what: string): Reply {
  const code = error.code ?? "XX000";
  // PostgREST looks functions, tables and columns up in its schema cache first, and words the miss its own way.
  if (code === "42883")
    return json(404, pgError("PGRST202", `Could not find the function public.${what} in the schema cache`));
  if (code === "42P01")
    return json(404, pgError("PGRST205", `Could not find the table 'public.${what}' in the schema cache`));
  if (code === "42703") {
    const column = /column "([^"]+)"/.exec(error.message ?? "")?.[1] ?? "?";
    return json(400, pgError("PGRST204", `Could not find the '${column}' column of '${what}' in the schema cache`));
  }
  return json(statusOf(code, role), pgError(code, error.message ?? "error", error.detail ?? null, error.hint ?? null));
}

/** A filter of PostgREST's query string: `col=eq.x`, `col=neq.x`, `col=is.null`, any of them after `not.`. */
function condition(column: string, expression: string, values: unknown[]): string {
  const negated = expression.startsWith("not.");
  const [operator, ...rest] = (negated ? expression.slice(4) : expression).split(".");
  const operand = rest.join(".");
  let sql: string;
  if (operator === "eq" || operator === "neq") {
    values.push(operand);
    sql = `${quoted(column)} ${operator === "eq" ? "=" : "<>"} $${values.length}`;
  } else if (operator === "is" && ["null", "true", "false"].includes(operand)) {
    sql = `${quoted(column)} is ${operand}`;
  } else {
    throw new Refusal(400, "PGRST100", `"${expression}" is not a filter this stand-in reads`);
  }
  return negated ? `not (${sql})` : sql;
}

const columnList = (select: string | null) =>
  (select ?? "*")
    .split(",")
    .map((name) => (name.trim() === "*" ? "*" : quoted(name.trim())))
    .join(", ");

function selectSql(table: string, params: URLSearchParams) {
  const values: unknown[] = [];
  const where: string[] = [];
  const order: string[] = [];
  for (const [key, value] of params) {
    if (key === "select" || key === "offset" || key === "limit") continue;
    if (key === "order") {
      for (const part of value.split(",")) {
        const [name = "", direction = "asc"] = part.split(".");
        order.push(`${quoted(name)} ${direction === "desc" ? "desc" : "asc"}`);
      }
    } else {
      where.push(condition(key, value, values));
    }
  }
  const whole = (name: string) => {
    const raw = params.get(name);
    if (raw === null) return "";
    if (!/^\d+$/.test(raw)) throw new Refusal(400, "PGRST103", `${name} must be a whole number`);
    return ` ${name} ${raw}`;
  };
  const sql =
    `select ${columnList(params.get("select"))} from public.${quoted(table)}` +
    (where.length ? ` where ${where.join(" and ")}` : "") +
    (order.length ? ` order by ${order.join(", ")}` : "") +
    whole("limit") +
    whole("offset");
  return { sql, values };
}

async function callFunction(db: PGlite, role: Role, name: string, body: string): Promise<Reply> {
  const parsed = body === "" ? { ok: true as const, value: {} } : parseJson(body);
  if (!parsed.ok || !isRecord(parsed.value)) return json(400, pgError("PGRST102", "Empty or invalid json"));
  const args = parsed.value;
  const names = Object.keys(args);
  const call = `public.${quoted(name)}(${names.map((arg, n) => `${quoted(arg)} => $${n + 1}`).join(", ")})`;
  const signature = `${name}(${[...names].sort().join(", ")})`;
  try {
    const result = await asRole(db, role, (tx) =>
      tx.query<{ result: unknown }>(
        `select ${call} as result`,
        names.map((arg) => parameter(args[arg])),
      ),
    );
    return json(200, result.rows[0]?.result ?? null);
  } catch (error) {
    return fromPostgres(error as PostgresError, role, signature);
  }
}

async function insertRows(db: PGlite, role: Role, table: string, request: RecordedRequest): Promise<Reply> {
  const parsed = parseJson(request.body);
  const rows = parsed.ok ? [parsed.value].flat() : [];
  if (!parsed.ok || !rows.every(isRecord)) return json(400, pgError("PGRST102", "Empty or invalid json"));
  const representation = /return=representation/.test(request.headers.prefer ?? "");
  const select = new URLSearchParams(request.query).get("select");
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  try {
    // One statement for every row, as PostgREST sends them: all or nothing.
    const returned = await asRole(db, role, async (tx) => {
      if (rows.length === 0) return [];
      const values: unknown[] = [];
      const tuples = rows.map(
        (row) =>
          `(${columns
            .map((column) => {
              values.push(parameter(row[column]));
              return `$${values.length}`;
            })
            .join(", ")})`,
      );
      const sql =
        `insert into public.${quoted(table)} (${columns.map(quoted).join(", ")}) values ${tuples.join(", ")}` +
        (representation ? ` returning ${columnList(select)}` : "");
      return (await tx.query(sql, values)).rows;
    });
    if (representation) return json(201, returned);
    // Without `Prefer: return=representation` PostgREST answers 201 with an empty body.
    return { status: 201, headers: { "content-range": "*/*" } };
  } catch (error) {
    return fromPostgres(error as PostgresError, role, table);
  }
}

async function readRows(db: PGlite, role: Role, table: string, query: string): Promise<Reply> {
  const { sql, values } = selectSql(table, new URLSearchParams(query));
  try {
    const found = await asRole(db, role, (tx) => tx.query(sql, values));
    const last = found.rows.length - 1;
    return json(200, found.rows, { "content-range": last < 0 ? "*/*" : `0-${last}/*` });
  } catch (error) {
    return fromPostgres(error as PostgresError, role, table);
  }
}

/** PostgREST's answer to a request under /rest/v1/ (`resource` is the rest of the path), as `role`. */
export async function postgrest(db: PGlite, role: Role, request: RecordedRequest, resource: string): Promise<Reply> {
  try {
    const rpc = /^rpc\/([^/]+)$/.exec(resource);
    if (rpc) {
      if (request.method !== "POST")
        return json(405, pgError("PGRST117", `Unsupported HTTP method: ${request.method}`));
      return await callFunction(db, role, decodeURIComponent(rpc[1] ?? ""), request.body);
    }
    if (!/^[^/]+$/.test(resource)) return json(404, pgError("PGRST125", `Invalid path specified in request URL`));
    const table = decodeURIComponent(resource);
    if (request.method === "POST") return await insertRows(db, role, table, request);
    if (request.method === "GET") return await readRows(db, role, table, request.query);
    return json(405, pgError("PGRST117", `Unsupported HTTP method: ${request.method}`));
  } catch (error) {
    if (error instanceof Refusal) return error.reply;
    throw error;
  }
}
