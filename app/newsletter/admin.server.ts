import { owner } from "~/content/site";
import { subscribersCsv } from "~/newsletter/subscribers-csv.server";
import { listBackups, restoreBackup } from "~/newsletter/backups.server";
import { WHOLE_FILE } from "~/newsletter/stores/sqlite.server";
import { backupSettings, embeddedStore, usesSupabase } from "~/newsletter/subscribers.server";
import { env } from "~/utils/env.server";
import { countByState, consentRecord, type ConsentRecord } from "~/newsletter/confirm-sqlite.server";
import { eraseOutboxRows } from "~/newsletter/confirm-admin.server";

/**
 * The owner's tools over the embedded store (`npm run subscribers`, scripts/subscribers.mjs), exported by the server
 * build so they run wherever the server runs, the Docker image included.
 */
export const subscriberAdmin = {
  /** The list lives in Supabase: these tools do not reach it. */
  usesSupabase,
  /** The live store, opened on first use (throws with the reason when the file cannot be used). */
  store: embeddedStore,
  /** Everything kept about one address (GDPR art. 15), or null when it is not on the list. */
  show(email: string): ConsentRecord | null {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return consentRecord(store.database(), email);
  },
  /** Confirmed and pending readers, apart. */
  countByState(): { confirmed: number; pending: number } {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return countByState(store.database());
  },
  /** Erases an address from the list and from the mail outbox; whether it was on the list, and outbox rows erased. */
  remove(email: string): { removed: boolean; mails: number } {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return { removed: store.remove(email), mails: eraseOutboxRows(email) };
  },
  exportCsv(): string {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return subscribersCsv(store.list(), owner.siteUrl);
  },
  /**
   * A consistent copy of the live list at `target`; answers how many subscribers it holds. The tool's process serves
   * nobody, so the copy is one step: one snapshot, which the running server's sign-ups cannot make start over.
   */
  backup(target: string): Promise<number> {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return store.backup(target, { stepPages: WHOLE_FILE });
  },
  /** The backup folder (BACKUP_DIR, or DATA_DIR/backups). */
  backupDir: () => backupSettings().dir,
  /** What the backup folder holds, each file checked. */
  backups: () => listBackups(backupSettings().dir),
  /** Restores a backup without opening the live store first: it may be missing or damaged. */
  restore: (file: string) => restoreBackup(file, env.DATA_DIR, backupSettings().dir),
};
