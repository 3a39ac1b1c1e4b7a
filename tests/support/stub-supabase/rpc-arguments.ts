// A function call's JSON body as PostgREST reads it for the stub's database functions: an object whose keys are exactly
// the function's argument names (in any order), else no match (PostgREST's 404 for an unknown signature).
// Run by plain node too: erasable TypeScript only.
import { isRecord } from "./behaviours.ts";
import { parseJson } from "./replies.ts";

export function rpcArguments(body: string, names: readonly string[]): Record<string, unknown> | null {
  const read = parseJson(body);
  if (!read.ok) return null;
  if (!isRecord(read.value)) return null;
  const keys = Object.keys(read.value).sort();
  return keys.join(",") === [...names].sort().join(",") ? read.value : null;
}
