// The stand-in as the app reaches it: a supabase-js client with no session, the way app/newsletter/list/supabase/
// makes one, and the time a call took.
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import type { StubSupabase } from "./stub";

/** A client of `stub` with `key` (the anon key unless said), optionally with PostgREST's time box. */
export function stubClient(
  stub: StubSupabase,
  key = stub.anonKey,
  options: { dbTimeout?: number } = {},
): SupabaseClient {
  return createClient(stub.url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    db: options.dbTimeout === undefined ? {} : { timeout: options.dbTimeout },
  });
}

/** A sign-up's insert, as the anon role makes it. */
export const insertSubscriber = (db: SupabaseClient, email: string) =>
  db.from("newsletter_subscribers").insert({ email });

/** What `work` answered, and how long it took. */
export async function elapsed<T>(work: () => PromiseLike<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}
