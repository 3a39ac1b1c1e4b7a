// Which adapter holds the list: Supabase when it is configured, otherwise the embedded SQLite file under DATA_DIR.
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { openSqliteList, StoreFileError } from "~/newsletter/list/sqlite/sqlite-list.server";
import { openSupabaseList } from "~/newsletter/list/supabase/supabase-list.server";
import { type Env, EnvError } from "~/utils/env.server";
import { describeCause } from "~/utils/log.server";

type ListEnv = Pick<
  Env,
  "SUPABASE_URL" | "SUPABASE_ANON_KEY" | "SUPABASE_CONFIRM_SECRET" | "SUPABASE_SERVICE_ROLE_KEY" | "DATA_DIR"
>;

/**
 * Opens the list. A damaged file says so itself; a folder that cannot hold the file is one clear line naming
 * DATA_DIR, and no start.
 */
export function openSubscriberList(settings: ListEnv): SubscriberList {
  if (settings.SUPABASE_URL && settings.SUPABASE_ANON_KEY) {
    return openSupabaseList({
      url: settings.SUPABASE_URL,
      anonKey: settings.SUPABASE_ANON_KEY,
      confirmSecret: settings.SUPABASE_CONFIRM_SECRET,
      serviceRoleKey: settings.SUPABASE_SERVICE_ROLE_KEY,
    });
  }
  try {
    return openSqliteList(settings.DATA_DIR);
  } catch (error) {
    if (error instanceof StoreFileError) throw error;
    throw new EnvError(
      `Invalid environment: DATA_DIR ${JSON.stringify(settings.DATA_DIR)} cannot hold the newsletter database ` +
        `(${describeCause(error)}). Point DATA_DIR at a writable folder, or configure Supabase.`,
    );
  }
}

/**
 * What the owner's tools print when the list lives in Supabase: where its own tools are. Here because it names the
 * table.
 */
export const SUPABASE_OWNER_HINT = [
  "The list lives in Supabase (SUPABASE_URL is set), not in this server's embedded store.",
  "Export it from the Supabase dashboard: Table Editor → newsletter_subscribers → Export → CSV, or in the SQL",
  "editor: select email, created_at, state, confirmed_at, unsubscribe_token from newsletter_subscribers order by id;",
  "One reader's whole record (what 'show' prints): supabase/queries/reader-record.sql in the SQL editor.",
  "Who gets no mail again and why, and lifting one ('unsuppress'): supabase/queries/suppressed-readers.sql.",
  "Remove an address there too. Apart from 'import', 'backup' and 'restore' (each given SUPABASE_SERVICE_ROLE_KEY",
  "itself: see docs/newsletter.md) and 'backups', this tool never asks for the service key.",
].join("\n");
