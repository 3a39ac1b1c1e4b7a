// Who an update goes to: every reader on the list with their unsubscribe token, from whichever store holds it. With
// Supabase the list can only be read with the service role key, which the command alone is given
// (SUPABASE_SERVICE_ROLE_KEY in its own environment): the web server never holds a key that reads addresses.
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface Reader {
  email: string;
  token: string;
}

export interface Audience {
  readonly source: "sqlite" | "supabase";
  /** The readers an update is for now (never throws for an empty list; throws with the reason when unreadable). */
  readers(): Promise<Reader[]>;
  /**
   * How stale `readers()` may be when checked before each mail: the embedded list is read afresh at almost every
   * claim; Supabase, one HTTP request per check, a few seconds.
   */
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

export function embeddedAudience(list: () => ListedRow[]): Audience {
  return {
    source: "sqlite",
    freshForMs: 250,
    readers: async () =>
      list()
        .filter(isReader)
        .map((row) => ({ email: row.email, token: row.unsubscribeToken as string })),
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
