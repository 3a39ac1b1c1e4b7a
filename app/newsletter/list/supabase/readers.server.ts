// The readers of a send, from Supabase. The list can only be read with the service role key, which the update command
// alone is given (SUPABASE_SERVICE_ROLE_KEY in its own environment): the web server never holds a key that reads
// addresses, so there `readers` and `isReader` refuse, saying so.
import type { Reader, Suppression } from "~/newsletter/list/subscriber-list.server";
import { createServerSupabaseClient } from "~/utils/supabase.server";

const PAGE = 1000;
/** Bounded: a list beyond this many pages is a misconfiguration (or a runaway), not readers. */
const MAX_PAGES = 1000;
/** How stale the readers' tokens may be for the check before each mail. */
export const READERS_FRESH_FOR_MS = 5_000;

type Page = PromiseLike<{ data: unknown[] | null; error: { message: string } | null }>;

/** Every row a paged query gives, page by page (PostgREST answers at most PAGE rows at a time). */
export async function everyRow<Row>(page: (from: number, to: number) => Page): Promise<Row[]> {
  const rows: Row[] = [];
  for (let index = 0; index < MAX_PAGES; index++) {
    const { data, error } = await page(index * PAGE, index * PAGE + PAGE - 1);
    if (error) throw new Error(`Supabase did not give the list: ${error.message}`);
    rows.push(...((data ?? []) as Row[]));
    if ((data ?? []).length < PAGE) return rows;
  }
  throw new Error(`Supabase gave more than ${PAGE * MAX_PAGES} rows: stopped reading.`);
}

/**
 * The confirmed readers who are not suppressed, oldest first. `noteBouncing` is told, after each whole read, which of
 * them (lower-cased) have soft bounces counted: only theirs need a reset when a mail reaches them.
 */
export function readConfirmedReaders(
  url: string,
  serviceRoleKey: string,
  noteBouncing: (emails: Set<string>) => void = () => {},
): () => Promise<Reader[]> {
  const client = createServerSupabaseClient(url, serviceRoleKey);
  return async () => {
    const rows = await everyRow<{ email: string; unsubscribe_token: string | null; soft_bounces?: number }>(
      (from, to) =>
        client
          .from("newsletter_subscribers")
          .select("email, unsubscribe_token, soft_bounces")
          // Pending readers (double opt-in, supabase/migrations) are not readers yet; suppressed ones never again.
          .eq("state", "confirmed")
          .is("suppressed_reason", null)
          .order("id")
          .range(from, to),
    );
    noteBouncing(new Set(rows.filter((row) => row.soft_bounces).map((row) => row.email.toLowerCase())));
    return rows.flatMap((row) => (row.unsubscribe_token ? [{ email: row.email, token: row.unsubscribe_token }] : []));
  };
}

/** Every suppressed address (lower-cased) and why, for the owner's `status`. */
export function readSuppressed(url: string, serviceRoleKey: string): () => Promise<Map<string, Suppression["reason"]>> {
  const client = createServerSupabaseClient(url, serviceRoleKey);
  return async () => {
    const rows = await everyRow<{ email: string; suppressed_reason: Suppression["reason"] }>((from, to) =>
      client
        .from("newsletter_subscribers")
        .select("email, suppressed_reason")
        .not("suppressed_reason", "is", null)
        .order("id")
        .range(from, to),
    );
    return new Map(rows.map((row) => [row.email.toLowerCase(), row.suppressed_reason]));
  };
}

/**
 * The readers' tokens as of at most `freshForMs` ago: the check before each mail, so a reader who unsubscribes
 * during a send is skipped from then on. Concurrent checks share one read.
 */
export function createMembership(
  readers: () => Promise<Reader[]>,
  freshForMs = READERS_FRESH_FOR_MS,
  now: () => number = Date.now,
) {
  let tokens: Set<string> | null = null;
  let readAt = -Infinity;
  let reading: Promise<Set<string>> | null = null;
  return async (token: string): Promise<boolean> => {
    if (!tokens || now() - readAt > freshForMs) {
      reading ??= readers().then(
        (found) => {
          tokens = new Set(found.map((reader) => reader.token));
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
  };
}
