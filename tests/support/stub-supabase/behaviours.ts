// The Supabase stub's scripted behaviours, checked rather than trusted: control calls come from another process as JSON.
import type { FunctionBehaviour, InsertBehaviour, PostgrestErrorBody } from "./types.ts";
import { DEFAULT_LATEST_POST_TEXT } from "./types.ts";

export const DEFAULT_INSERT_BEHAVIOUR: InsertBehaviour = { kind: "store" };
export const DEFAULT_FUNCTION_BEHAVIOUR: FunctionBehaviour = { kind: "text", text: DEFAULT_LATEST_POST_TEXT };

export class BehaviourError extends Error {}

export function isRecord(value: unknown): value is Record<string, unknown> {
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
