/**
 * Runs the Supabase stand-in as its own process (the bench uses it so; the browser tests start it in their global
 * setup):
 *
 *   STUB_PORT=54321 node tests/support/stub-supabase/main.ts
 *
 * Browser tests script it over HTTP through the /__stub/ control endpoints (see stub.ts); use
 * `${url}/__stub/state` as the readiness URL. It prints its ready line once its database is migrated.
 * Env: STUB_PORT (default 54321, 0 for any free port), STUB_HOST (default 127.0.0.1), STUB_ANON_KEY (optional),
 * STUB_SERVICE_ROLE_KEY and STUB_SIGNING_KEY (optional), STUB_DATABASE=off (the edge function alone: no PGlite to
 * start, the list's calls answer 503).
 */

// Plain node needs the .ts extension on a relative import, but tsc refuses a literal one without
// allowImportingTsExtensions; a specifier held in a variable satisfies both, and the annotation keeps the types.
// The empty export makes this file a module, which top-level await needs.
export {};

const stubModule: string = "./stub.ts";
const { startStubSupabase }: typeof import("./stub") = await import(stubModule);

function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 54321;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`STUB_PORT must be an integer 0-65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

const stub = await startStubSupabase({
  port: portFromEnv(process.env.STUB_PORT),
  host: process.env.STUB_HOST || "127.0.0.1",
  anonKey: process.env.STUB_ANON_KEY || undefined,
  serviceRoleKey: process.env.STUB_SERVICE_ROLE_KEY || undefined,
  signingKey: process.env.STUB_SIGNING_KEY || undefined,
  database: process.env.STUB_DATABASE !== "off",
});

console.log(`stub-supabase ready at ${stub.url} anonKey=${stub.anonKey}`);

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await stub.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
