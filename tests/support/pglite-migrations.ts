/**
 * Real Postgres in the test process (PGlite) for the migration tests: a database that starts as a fresh Supabase
 * project does, the migrations read from supabase/migrations, and statements run as one of Supabase's roles.
 */
import { readFile } from "node:fs/promises";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";

/**
 * What a fresh Supabase project has before any migration: the two API roles, usage on public, and the default
 * privileges that hand every new table, sequence and function in public to them (without the defaults a test could
 * not tell whether a migration's revoke actually does anything); and the third, the service role, which bypasses row
 * level security and holds every right in public.
 */
const SUPABASE_BASELINE = `
  create role anon nologin noinherit;
  create role authenticated nologin noinherit;
  grant usage on schema public to anon, authenticated;
  alter default privileges in schema public grant all on tables to anon, authenticated;
  alter default privileges in schema public grant all on sequences to anon, authenticated;
  alter default privileges in schema public grant all on functions to anon, authenticated;
  create role service_role nologin noinherit bypassrls;
  grant usage on schema public to service_role;
  alter default privileges in schema public grant all on tables to service_role;
  alter default privileges in schema public grant all on functions to service_role;
`;

/**
 * A database like a new Supabase project's (pgcrypto included, as Supabase has it), before any migration. PGlite
 * compiles its WebAssembly on first start, which can take well over ten seconds: call it in a long beforeAll.
 */
export async function freshSupabaseDatabase(): Promise<PGlite> {
  const db = await PGlite.create({ extensions: { pgcrypto } });
  await db.exec(SUPABASE_BASELINE);
  return db;
}

/** Runs these files of supabase/migrations, in the order given. */
export async function migrate(db: PGlite, ...names: string[]): Promise<void> {
  for (const name of names) {
    await db.exec(await readFile(new URL(`../../supabase/migrations/${name}`, import.meta.url), "utf8"));
  }
}

/**
 * Runs `fn` as one of Supabase's roles, inside a transaction: a failure rolls back, and the role never leaks into the
 * next statement.
 */
export const asRole = <T>(db: PGlite, role: string, fn: (tx: Transaction) => Promise<T>): Promise<T> =>
  db.transaction(async (tx) => {
    await tx.exec(`set local role ${role}`);
    return fn(tx);
  });

export interface PgError {
  code?: string;
  message?: string;
  constraint?: string;
}

/** The error a statement fails with; throws when it succeeds. */
export async function failureOf(promise: Promise<unknown>): Promise<PgError> {
  try {
    await promise;
  } catch (error) {
    return error as PgError;
  }
  throw new Error("expected the statement to fail");
}

/** Stores the server's signing key where the confirmation migration reads it, as the owner does once. */
export async function storeSigningKey(db: PGlite, key: string): Promise<void> {
  await db.query("insert into newsletter_private.settings (name, value) values ('confirm_signing_key', $1)", [key]);
}

/** The readers of a send, as the adapter asks PostgREST for them with the service role key. */
export const sendReaders = async (db: PGlite): Promise<string[]> =>
  (
    await asRole(db, "service_role", (tx) =>
      tx.query<{ email: string }>(
        "select email from public.newsletter_subscribers where state = 'confirmed' and suppressed_reason is null " +
          "order by id",
      ),
    )
  ).rows.map((row) => row.email);

/**
 * Calls a database function as PostgREST calls it for the service role key (named arguments; an object or an array
 * as JSON), for code that takes an RpcCall (app/newsletter/list/supabase/rpc.server.ts).
 */
export const serviceRoleRpc =
  (db: PGlite) =>
  async (name: string, args: Record<string, unknown>): Promise<unknown> => {
    const names = Object.keys(args);
    const call = `public.${name}(${names.map((arg, n) => `${arg} => $${n + 1}`).join(", ")})`;
    const values = names.map((arg) => {
      const value = args[arg];
      return typeof value === "object" && value !== null ? JSON.stringify(value) : value;
    });
    const found = await asRole(db, "service_role", (tx) => tx.query<{ a: unknown }>(`select ${call} as a`, values));
    return found.rows[0]!.a;
  };
