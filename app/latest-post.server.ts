import { supabaseConfigured } from "~/env.server";

export interface LatestPost {
  text: string;
}

/**
 * The owner's latest post, or null when there is none to show (no Supabase, or any failure).
 * Implemented in the latest-post work: edge function call, time box, cache.
 */
export async function getLatestPost(): Promise<LatestPost | null> {
  if (!supabaseConfigured) return null;
  return null;
}

/**
 * What getLatestPost would answer right now without waiting, for the home page cache: `settled` is false when only a
 * call could tell (nothing cached yet), and then the page must be rendered the normal way.
 */
export function latestPostSnapshot(): { post: LatestPost | null; settled: boolean } {
  return { post: null, settled: !supabaseConfigured };
}
