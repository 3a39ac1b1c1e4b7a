import { env, EnvError } from "~/env.server";
import { registerHealthCheck } from "~/lib/health.server";
import { onShutdown } from "~/lib/shutdown.server";
import { describeCause, type SubscriberStore } from "~/stores/types";
import { openSqliteStore, type SqliteStore } from "~/stores/sqlite.server";
import { createSupabaseStore } from "~/stores/supabase.server";

export type { SubscribeOutcome, SubscriberStore } from "~/stores/types";

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
  onShutdown(() => store.close());
  registerHealthCheck("newsletter-store", () => store.healthy());
  return store;
}

const store = startSubscriberStore();

export const subscriberStore: SubscriberStore = store;

/** The embedded store, for the owner's tools; null when the list lives in Supabase. */
export const sqliteStore: SqliteStore | null = store.kind === "sqlite" ? (store as SqliteStore) : null;
