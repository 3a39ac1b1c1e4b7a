/**
 * The stand-in's database: PGlite as a fresh Supabase project, every file of supabase/migrations applied in order, and
 * the server's signing key stored as the owner stores it. It is what the list's calls reach: every rule of the list is
 * the migrations'. The helpers here are the test's view of it, as the owner's SQL editor sees it (superuser, no role).
 *
 * Run by `node` through stub.ts too: erasable TypeScript only.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { asRole, freshSupabaseDatabase, migrate, storeSigningKey } from "../pglite-migrations.ts";

const MIGRATIONS = new URL("../../../supabase/migrations/", import.meta.url);
const PGLITE_PACKAGE = new URL("../../../node_modules/@electric-sql/pglite/package.json", import.meta.url);

/** A row of the list as the table holds it, every column the migrations made. */
export type SubscriberRow = Record<string, unknown> & {
  id: number;
  email: string;
  state: "pending" | "confirmed";
  unsubscribe_token: string;
  suppressed_reason: "bounced" | "complained" | "unsubscribed" | null;
  suppressed_detail: string | null;
  suppressed_at: Date | null;
  soft_bounces: number;
  consent_page: string | null;
  created_at: Date;
  confirmed_at: Date | null;
};

/**
 * A new database after every migration. Its files are kept in the temporary folder, once for these migrations and
 * this PGlite: a stand-in that loads them skips initdb and the migrations, most of its start.
 */
async function migratedDatabase(): Promise<PGlite> {
  const names = (await readdir(MIGRATIONS)).filter((name) => name.endsWith(".sql")).sort();
  const hash = createHash("sha256").update(await readFile(PGLITE_PACKAGE));
  for (const name of names) hash.update(`${name}\n`).update(await readFile(new URL(name, MIGRATIONS)));
  const file = path.join(tmpdir(), "stub-supabase-pglite", `${hash.digest("hex").slice(0, 32)}.tar`);
  try {
    return await PGlite.create({ extensions: { pgcrypto }, loadDataDir: new Blob([await readFile(file)]) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const db = await freshSupabaseDatabase();
  await migrate(db, ...names);
  const files = await db.dumpDataDir("none");
  // Written aside and renamed: a test file starting at the same moment reads a whole copy or none.
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, Buffer.from(await files.arrayBuffer()));
  await rename(partial, file);
  return db;
}

/** The database of a new stand-in: migrated, and holding the signing key when one is given. */
export async function startDatabase(signingKey: string | undefined): Promise<PGlite> {
  const db = await migratedDatabase();
  if (signingKey !== undefined) await storeSigningKey(db, signingKey);
  await warmUp(db);
  return db;
}

class RolledBack extends Error {}

/**
 * A visitor's insert, rolled back: the first statement on a new database is many times slower than the next (its
 * catalogue is read, the triggers planned), and a test's time box of a few hundred milliseconds must not meet it.
 */
async function warmUp(db: PGlite): Promise<void> {
  await asRole(db, "anon", async (tx) => {
    await tx.query("insert into public.newsletter_subscribers (email) values ('warm-up@example.invalid')");
    throw new RolledBack();
  }).catch((error: unknown) => {
    if (!(error instanceof RolledBack)) throw error;
  });
}

/**
 * Back to an empty list, keeping the settings (the signing key, the ledger's key): much faster than a new database,
 * so a file's tests share one.
 */
export async function emptyList(db: PGlite): Promise<void> {
  await db.exec(
    "truncate public.newsletter_subscribers, public.newsletter_consent_wordings, newsletter_private.tombstones, " +
      "newsletter_private.carried_tombstones " +
      "restart identity",
  );
}

/** Readers who signed up before the test, confirmed, as rows written in the SQL editor are. */
export async function seed(db: PGlite, emails: readonly string[]): Promise<void> {
  for (const email of emails) await db.query("insert into public.newsletter_subscribers (email) values ($1)", [email]);
}

export async function rows(db: PGlite): Promise<SubscriberRow[]> {
  return (await db.query<SubscriberRow>("select * from public.newsletter_subscribers order by id")).rows;
}

/** The row of this address in any letter case, or undefined. */
export async function rowOf(db: PGlite, email: string): Promise<SubscriberRow | undefined> {
  const found = await db.query<SubscriberRow>(
    "select * from public.newsletter_subscribers where lower(email) = lower($1)",
    [email],
  );
  return found.rows[0];
}

/** The reasons of the tombstones the list keeps (they hold no address). */
export async function tombstoneReasons(db: PGlite): Promise<string[]> {
  return (
    await db.query<{ reason: string }>("select reason from newsletter_private.tombstones order by at, reason")
  ).rows.map((row) => row.reason);
}
