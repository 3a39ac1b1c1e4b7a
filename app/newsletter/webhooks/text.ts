import type { Parsed, RelayEvent } from "./types";

/** A relay's words about one refusal, as one bounded line (it reaches the store and the owner's terminal). */
export function detailLine(...parts: (string | number | undefined | null)[]): string {
  const text = parts
    .filter((part) => part !== undefined && part !== null && String(part).trim() !== "")
    .map(String)
    .join(": ");
  // Control characters (a newline from the remote server's reply) would break the owner's one-line listing.
  const line = Array.from(text, (char) => (isControl(char.codePointAt(0)!) ? " " : char))
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  const chars = Array.from(line);
  return chars.length <= 300 ? line : `${chars.slice(0, 299).join("")}…`;
}

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

// The shape of an address as a relay reports it; the list decides what it knows. 254 is SMTP's path limit.
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

/** The address a relay names, trimmed, or null when it is no address at all (the event is then dropped). */
export function addressOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const address = value.trim();
  return address.length <= 254 && ADDRESS.test(address) ? address : null;
}

/** A relay's timestamp (ISO text, or seconds since 1970 as a number or text), or `fallback` when it has none. */
export function timeOf(value: unknown, fallback: Date): Date {
  let at: Date | null = null;
  if (typeof value === "number" && Number.isFinite(value)) at = new Date(value * 1000);
  else if (typeof value === "string" && /^\d+(\.\d+)?$/.test(value.trim())) at = new Date(Number(value) * 1000);
  else if (typeof value === "string" && value.trim() !== "") at = new Date(value.trim());
  return at && Number.isFinite(at.getTime()) ? at : fallback;
}

/** A JSON body as a plain object, or null (an array, a number, or no JSON at all). */
export function jsonObject(body: string): Record<string, unknown> | null {
  const value = jsonValue(body);
  return isObject(value) ? value : null;
}

/** A JSON body as any value, or undefined when it is not JSON. */
export function jsonValue(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export const events = (list: RelayEvent[], note?: string): Parsed =>
  note === undefined ? { ok: true, events: list } : { ok: true, events: list, note };
export const unreadable = (reason: string): Parsed => ({ ok: false, reason });
