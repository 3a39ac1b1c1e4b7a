import { env, EnvError } from "~/utils/env.server";
import { describeCause, type SubscriberStore } from "~/newsletter/stores/types.server";
import { openSqliteStore, type SqliteStore } from "~/newsletter/stores/sqlite.server";
import { createSupabaseStore } from "~/newsletter/stores/supabase.server";

export type { SubscribeOutcome, SubscriberStore } from "~/newsletter/stores/types.server";

/**
 * Chooses the store once, when the server loads the build: Supabase when it is configured, otherwise the embedded
 * SQLite file under DATA_DIR. A DATA_DIR that cannot be written stops start-up with a message naming it.
 */
function startSubscriberStore(): SubscriberStore | SqliteStore {
  if (env.SUPABASE_URL && env.SUPABASE_ANON_KEY) {
    return createSupabaseStore({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY });
  }
  let store;
  try {
    store = openSqliteStore(env.DATA_DIR);
  } catch (error) {
    // Reported like any other bad setting: one clear line, and the server does not start.
    throw new EnvError(
      `Invalid environment: DATA_DIR ${JSON.stringify(env.DATA_DIR)} cannot hold the newsletter database ` +
        `(${describeCause(error)}). Point DATA_DIR at a writable folder, or configure Supabase.`,
    );
  }
  return store;
}

const store = startSubscriberStore();

export const subscriberStore: SubscriberStore = store;

/** The embedded store, for the owner's tools; null when the list lives in Supabase. */
export const sqliteStore: SqliteStore | null = store.kind === "sqlite" ? (store as SqliteStore) : null;

/**
 * Whether a sign-up can be stored now, for /healthz: the embedded file is writable. Supabase is never called by a
 * probe (a probe every few seconds must not spend its quota or fail because it is slow).
 */
export const subscriberStoreHealthy = (): boolean => sqliteStore?.healthy() ?? true;

/** Closes the embedded database when the server (or the owner's tool) stops. */
export function closeSubscriberStore() {
  sqliteStore?.close();
}
