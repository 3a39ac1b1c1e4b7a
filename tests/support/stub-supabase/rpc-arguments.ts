// A function call's JSON body as PostgREST reads it for the stub's database functions: an object whose keys are exactly
// the function's argument names (in any order), else no match (PostgREST's 404 for an unknown signature).
// Run by plain node too: erasable TypeScript only.

export function rpcArguments(body: string, names: readonly string[]): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const keys = Object.keys(parsed).sort();
  return keys.join(",") === [...names].sort().join(",") ? (parsed as Record<string, unknown>) : null;
}
