// What the Supabase stand-in answers with, and how it reads a request: PostgREST's error bodies, the gateway's HTML
// page. Run by plain node too (main.ts): erasable TypeScript only.
import type { IncomingMessage } from "node:http";
import type { PostgrestErrorBody } from "./types.ts";

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
