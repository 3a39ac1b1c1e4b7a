// Who an update goes to: every reader on the list with their unsubscribe token, from whichever store holds it. With
// Supabase the list can only be read with the service role key, which the command alone is given
// (SUPABASE_SERVICE_ROLE_KEY in its own environment): the web server never holds a key that reads addresses.
import type { DatabaseSync } from "node:sqlite";
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface Reader {
  email: string;
  token: string;
}

export interface Audience {
  readonly source: "sqlite" | "supabase";
  /** The readers an update is for now (never throws for an empty list; throws with the reason when unreadable). */
  readers(): Promise<Reader[]>;
  /** Whether the token is a reader's now: asked before each mail (the embedded store answers from the live file). */
  isReader?(token: string): boolean;
  /** How stale a list read by `readers()` may be for that check when there is no `isReader` (Supabase). */
  readonly freshForMs: number;
}

/** A stored row as the embedded store lists it; a `state` other than confirmed (a pending reader) is not a reader. */
export interface ListedRow {
  email: string;
  unsubscribeToken: string | null;
  state?: string;
}

export const isReader = (row: ListedRow): boolean =>
  Boolean(row.unsubscribeToken) && (row.state === undefined || row.state === "confirmed");

/** What the embedded audience needs of the store: its list, and the live database for the check per mail. */
export interface EmbeddedList {
  list(): ListedRow[];
  database(): DatabaseSync;
}

export function embeddedAudience(store: EmbeddedList): Audience {
  return {
    source: "sqlite",
    freshForMs: 0,
    readers: async () =>
      store
        .list()
        .filter(isReader)
        .map((row) => ({ email: row.email, token: row.unsubscribeToken as string })),
    // One indexed lookup per mail (the token is unique): exact, where re-reading 10,000 rows would block the server.
    isReader: (token) =>
      store
        .database()
        .prepare("select 1 from newsletter_subscribers where unsubscribe_token = ? and state = 'confirmed'")
        .get(token) !== undefined,
  };
}

const PAGE = 1000;
/** Bounded: a list beyond this many pages is a misconfiguration (or a runaway), not readers. */
const MAX_PAGES = 1000;

export function supabaseAudience(url: string, serviceRoleKey: string): Audience {
  const client = createServerSupabaseClient(url, serviceRoleKey);
  return {
    source: "supabase",
    freshForMs: 5_000,
    async readers() {
      const readers: Reader[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const { data, error } = await client
          .from("newsletter_subscribers")
          .select("email, unsubscribe_token")
          // Pending readers (double opt-in, supabase/migrations) are not readers yet.
          .eq("state", "confirmed")
          .order("id")
          .range(page * PAGE, page * PAGE + PAGE - 1);
        if (error) throw new Error(`Supabase did not give the list: ${error.message}`);
        const rows = (data ?? []) as { email: string; unsubscribe_token: string | null }[];
        for (const row of rows)
          if (row.unsubscribe_token) readers.push({ email: row.email, token: row.unsubscribe_token });
        if (rows.length < PAGE) return readers;
      }
      throw new Error(`Supabase gave more than ${PAGE * MAX_PAGES} rows: stopped reading.`);
    },
  };
}

/**
 * The readers' tokens as of at most `freshForMs` ago: the check before each mail, so a reader who unsubscribes
 * during a send is skipped from then on. Concurrent checks share one read.
 */
export function createMembership(audience: Audience, now: () => number = Date.now) {
  let tokens: Set<string> | null = null;
  let readAt = -Infinity;
  let reading: Promise<Set<string>> | null = null;
  return {
    async has(token: string): Promise<boolean> {
      if (audience.isReader) return audience.isReader(token);
      if (!tokens || now() - readAt > audience.freshForMs) {
        reading ??= audience.readers().then(
          (readers) => {
            tokens = new Set(readers.map((reader) => reader.token));
            readAt = now();
            reading = null;
            return tokens;
          },
          (error: unknown) => {
            reading = null;
            throw error;
          },
        );
        return (await reading).has(token);
      }
      return tokens.has(token);
    },
  };
}
