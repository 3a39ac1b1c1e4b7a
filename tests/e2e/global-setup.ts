// The servers every browser test shares, started once before them and stopped after them (playwright.config.ts
// chose their ports and folders).
import { startServer } from "../support/server-process.mjs";
import { startStubSupabase } from "../support/stub-supabase";

export default async function globalSetup() {
  const env = process.env;
  const stub = await startStubSupabase({ port: Number(env.E2E_STUB_PORT), anonKey: env.E2E_STUB_ANON_KEY });
  const servers = await Promise.all([
    // The embedded-store server (no Supabase): what `npm start` gives a fresh machine.
    startServer({ env: { PORT: env.E2E_PORT!, DATA_DIR: env.E2E_DATA_DIR! } }),
    // The same app configured with the stub Supabase; every view asks the stub, so each test's scripted answer is
    // what the page shows.
    startServer({
      env: {
        PORT: env.E2E_SUPABASE_PORT!,
        DATA_DIR: env.E2E_SUPABASE_DATA_DIR!,
        SUPABASE_URL: env.E2E_STUB_URL!,
        SUPABASE_ANON_KEY: env.E2E_STUB_ANON_KEY!,
        LATEST_POST_TTL_SECONDS: "0",
        LATEST_POST_FAILURE_TTL_SECONDS: "0",
      },
    }),
  ]);
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await stub.close();
  };
}
