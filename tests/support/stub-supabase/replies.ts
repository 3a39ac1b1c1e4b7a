// What the Supabase stub answers with, and how it reads a request: PostgREST's error bodies, the migration's row
// checks, the gateway's HTML page. Run by plain node too (main.ts): erasable TypeScript only.
import type { IncomingMessage } from "node:http";
import { CHECK_CONSTRAINT, MAX_EMAIL_LENGTH, type PostgrestErrorBody, TABLE, UNIQUE_INDEX } from "./types.ts";

export const GATEWAY_HTML =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
  "<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n";

// Browsers call both services cross-origin; the hosted gateway and a well-behaved edge function both allow it.
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS",
  "access-control-expose-headers": "content-range, content-profile",
  "access-control-max-age": "600",
};

const JSON_TYPE = "application/json; charset=utf-8";

export function pgError(code: string, message: string, details: string | null = null, hint: string | null = null) {
  return { code, details, hint, message } satisfies PostgrestErrorBody;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status: statusCode, headers: { "content-type": JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

// PostgREST reports a permission failure to the anon role as 401 (403 is for signed-in roles).
export const PERMISSION_DENIED = json(401, pgError("42501", `permission denied for table ${TABLE}`));

/** Mirrors the migration: RLS policy first, then the check constraint, then the unique index. */
export function checkRow(row: Record<string, unknown>, taken: Set<string>): Reply | null {
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

export function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
