import { createClient, type SupabaseClient } from "@supabase/supabase-js";

/**
 * A supabase-js client for server-side use: it never signs in, so there is no session to persist, refresh or read
 * from a URL. Each caller creates one for the life of the process.
 */
export function createServerSupabaseClient(url: string, anonKey: string, fetchImpl?: typeof fetch): SupabaseClient {
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    ...(fetchImpl ? { global: { fetch: fetchImpl } } : {}),
  });
}
