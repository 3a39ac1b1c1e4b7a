import { challenge } from "~/content/site";
import { type BackupSettings, startAutomaticBackups } from "~/newsletter/backups.server";
import { backupDirectory, env, EnvError } from "~/utils/env.server";
import { describeCause, type SubscriberStore } from "~/newsletter/stores/types.server";
import { openSqliteStore, type SqliteStore, StoreFileError } from "~/newsletter/stores/sqlite.server";
import { createSupabaseStore } from "~/newsletter/stores/supabase.server";

export type { SubscribeOutcome, SubscriberStore } from "~/newsletter/stores/types.server";

/** Supabase when it is configured, otherwise the embedded SQLite file under DATA_DIR. */
export const usesSupabase = Boolean(env.SUPABASE_URL && env.SUPABASE_ANON_KEY);

/** The store this server uses, told apart by `kind`. */
type OpenedStore = (SubscriberStore & { readonly kind: "supabase" }) | SqliteStore;

function startSubscriberStore(): OpenedStore {
  if (env.SUPABASE_URL && env.SUPABASE_ANON_KEY) {
    return createSupabaseStore({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY });
  }
  try {
    return openSqliteStore(env.DATA_DIR);
  } catch (error) {
    // A damaged file says so itself; anything else is the folder: one clear line naming it, and no start.
    if (error instanceof StoreFileError) throw error;
    throw new EnvError(
      `Invalid environment: DATA_DIR ${JSON.stringify(env.DATA_DIR)} cannot hold the newsletter database ` +
        `(${describeCause(error)}). Point DATA_DIR at a writable folder, or configure Supabase.`,
    );
  }
}

let opened: OpenedStore | undefined;

/**
 * Opens the store once: the server at start-up (a bad DATA_DIR or a damaged file stops it there), the owner's tools
 * when a command needs the live list (restore must work when the file cannot be opened at all).
 */
export function openSubscriberStore(): OpenedStore {
  opened ??= startSubscriberStore();
  return opened;
}

export const subscriberStore: SubscriberStore = {
  kind: usesSupabase ? "supabase" : "sqlite",
  subscribe: (email) => openSubscriberStore().subscribe(email),
  unsubscribe: (token) => openSubscriberStore().unsubscribe(token),
};

/** The embedded store, opened, for the owner's tools; null when the list lives in Supabase. */
export function embeddedStore(): SqliteStore | null {
  if (usesSupabase) return null;
  const store = openSubscriberStore();
  return store.kind === "sqlite" ? store : null;
}

/**
 * Whether a sign-up can be stored now, for /healthz: the embedded file is writable. Supabase is never called by a
 * probe (a probe every few seconds must not spend its quota or fail because it is slow).
 */
export const subscriberStoreHealthy = (): boolean => usesSupabase || (opened?.kind === "sqlite" && opened.healthy());

/** Where and how many automatic backups of the embedded store are kept, dated by the site's own time zone. */
export const backupSettings = (): BackupSettings => ({
  dir: backupDirectory(),
  keep: env.BACKUP_KEEP,
  timeZone: challenge.timeZone,
});

let stopBackups: (() => Promise<void>) | undefined;

/** The server's automatic backups of the embedded store; none with Supabase (it keeps its own). */
export function startStoreBackups() {
  const store = embeddedStore();
  if (store) stopBackups ??= startAutomaticBackups(store, backupSettings());
}

/**
 * Stops the backups and closes the embedded database when the server (or the owner's tool) stops; a backup under way
 * finishes first.
 */
export async function closeSubscriberStore() {
  const running = stopBackups?.();
  stopBackups = undefined;
  await running;
  if (opened?.kind === "sqlite") opened.close();
}
