import { owner } from "~/content/site";
import type { Outbox, OutboxState } from "~/mail/outbox.server";
import { parseImportArgs } from "~/newsletter/admin/import/import-args.server";
import { liftImportSuppressions } from "~/newsletter/admin/import/lift-import.server";
import { importTarget } from "~/newsletter/admin/import/list-target.server";
import { type ImportTarget, runImport } from "~/newsletter/admin/import/run-import.server";
import { subscribersCsv } from "~/newsletter/admin/subscribers-csv.server";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { type RestoreReport, restoreBackup } from "~/newsletter/backups/restore.server";
import {
  backupSupabase,
  restoreIntoSupabase,
  type SupabaseRestore,
} from "~/newsletter/backups/supabase-restore.server";
import { SUPABASE_OWNER_HINT } from "~/newsletter/list/open-list.server";
import { supabaseImported } from "~/newsletter/list/supabase/imported.server";
import { WHOLE_FILE } from "~/newsletter/list/sqlite/sqlite-list.server";
import type {
  ConsentRecord,
  OwnerOperations,
  SubscriberList,
  UnsuppressOutcome,
} from "~/newsletter/list/subscriber-list.server";
import type { BackupSettings } from "~/newsletter/backups/automatic-backups.server";
import type { Env } from "~/utils/env.server";

/** What the owner's tools need of the composition root (app/server-build/composition.server.ts). */
export interface AdminServices {
  /** The one reading of the environment. */
  readonly settings: Pick<Env, "SUPABASE_URL" | "SUPABASE_SERVICE_ROLE_KEY" | "DATA_DIR">;
  readonly usesSupabase: boolean;
  readonly backupSettings: BackupSettings;
  list(): SubscriberList;
  /** The outbox when its file exists, else null: the tools never create one. */
  existingOutbox(): Outbox | null;
}

/** The live list's owner operations, opened on first use (throws with the reason when the file cannot be used). */
function ownerOperations(services: () => AdminServices): OwnerOperations {
  const operations = services().list().owner;
  if (!operations) throw new Error("The list lives in Supabase.");
  return operations;
}

/** Where the import command writes: the embedded list, or Supabase with the service role key given to the command. */
function importList(services: () => AdminServices): ImportTarget {
  if (!services().usesSupabase) return importTarget(ownerOperations(services));
  return importTarget(supabaseImported(serviceRole(services, "importing into it", "import <file.csv> [--dry-run]")));
}

/** The service role key, given to this command alone, for a command that reaches the Supabase list. */
function serviceRole(services: () => AdminServices, command: string, usage: string) {
  const { SUPABASE_URL: url, SUPABASE_SERVICE_ROLE_KEY: serviceRoleKey } = services().settings;
  if (!url || !serviceRoleKey) {
    throw new Error(
      `The list lives in Supabase, and ${command} takes the service role key, which only this command is given:\n` +
        `  SUPABASE_SERVICE_ROLE_KEY=<key> npm run subscribers -- ${usage}\n` +
        "(Supabase dashboard → Project Settings → API keys; never put it in the web server's environment.)",
    );
  }
  return { url, serviceRoleKey };
}

/** Erases every outbox row for an address (`remove` erases everything about it); none when there is no outbox. */
function eraseOutboxRows(services: () => AdminServices, email: string): number {
  // A send's record keeps what became of the reader's mail (the refusal it recorded), not who they were.
  return services().existingOutbox()?.removeRecipient(email) ?? 0;
}

/** Confirmation mails by state in the outbox (waiting: queued or being sent); null when there is no outbox yet. */
function confirmationMails(services: () => AdminServices): Record<OutboxState, number> | null {
  return services().existingOutbox()?.counts({ kind: "confirm" }) ?? null;
}

/**
 * The owner's tools over the embedded list (`npm run subscribers`, scripts/subscribers.mjs), exported by the server
 * build so they run wherever the server runs, the Docker image included.
 */
export function subscriberTools(services: () => AdminServices) {
  return {
    /** The list lives in Supabase: these tools do not reach it. */
    usesSupabase: () => services().usesSupabase,
    /** What to do instead when it does. */
    supabaseHint: SUPABASE_OWNER_HINT,
    /** The live list itself, for the bench (bench/backup-stall.mjs): the owner's own measurements. */
    liveList: () => services().list(),
    /** Opens the live list now, so a file that cannot be opened says why before any command runs. */
    open: () => void ownerOperations(services),
    count: (): number => ownerOperations(services).count(),
    /** Every subscriber, oldest first. */
    list: () => ownerOperations(services).rows(),
    /** Everything kept about one address (GDPR art. 15), or null when it is not on the list. */
    show: (email: string): ConsentRecord | null => ownerOperations(services).show(email),
    /** Confirmed and pending readers, apart. */
    countByState: (): { confirmed: number; pending: number } => ownerOperations(services).countByState(),
    /** Readers who get no mail again. */
    countSuppressed: (): number => ownerOperations(services).countSuppressed(),
    /** Whether the mailbox this address reaches left the list, why and when (its tombstone), or null. */
    leftOf: (email: string) => ownerOperations(services).leftOf(email),
    /** Mailboxes that left the list (tombstones: no address kept). */
    leftCount: (): number => ownerOperations(services).tombstones().length,
    /** Confirmation mails in the outbox by state (null: no outbox file), for `count`: what waits, what went. */
    confirmationMails: () => confirmationMails(services),
    /**
     * Brings readers from another tool's export into the list (or, with dryRun, says what it would do); with Supabase,
     * through the service role key given to the command (throws saying where it goes when it is not).
     */
    /** The import's file and flags from the command line, or the error to print with its usage. */
    parseImportArgs,
    import: (file: string, flags: { dryRun: boolean; yes: boolean }, out: { write(text: string): unknown }) =>
      runImport({ file, ...flags, list: importList(services), now: new Date(), out }),
    /** Lifts every suppression an import of `file` made (the file read again); answers the exit code. */
    unsuppressImport: (file: string, out: { write(text: string): unknown }): Promise<number> => {
      const operations = ownerOperations(services);
      const list = services().list();
      const target = {
        show: (email: string) => operations.show(email),
        unsuppress: async (e: string) => (await list.unsuppress(e)).kind === "lifted",
      };
      return liftImportSuppressions({ file, list: target, out });
    },
    /** Lifts a bounce or an import's suppression (a mailbox that was full); refuses a reader's own act, saying why. */
    unsuppress: (email: string): Promise<UnsuppressOutcome> => services().list().unsuppress(email),
    /** Erases an address from the list and from the mail outbox; whether it was on the list, and outbox rows erased. */
    remove: (email: string): { removed: boolean; mails: number } => {
      return { removed: ownerOperations(services).remove(email), mails: eraseOutboxRows(services, email) };
    },
    exportCsv: (): string => subscribersCsv(ownerOperations(services).rows(), owner.siteUrl),
    /**
     * A consistent copy of the live list at `target`; answers how many subscribers it holds. The tool's process serves
     * nobody, so the copy is one step: one snapshot, which the running server's sign-ups cannot make start over.
     */
    backup: (target: string): Promise<number> =>
      services().usesSupabase
        ? backupSupabase(serviceRole(services, "a backup of it", "backup <file>"), target)
        : ownerOperations(services).backup(target, { stepPages: WHOLE_FILE }),
    /** The backup folder (BACKUP_DIR, or DATA_DIR/backups). */
    backupDir: () => services().backupSettings.dir,
    /** What the backup folder holds, each file checked. */
    backups: () => listBackups(services().backupSettings.dir),
    /** Restores a backup without opening the live list first: it may be missing or damaged. */
    restore: (file: string): Promise<RestoreReport | SupabaseRestore> =>
      services().usesSupabase
        ? restoreIntoSupabase(
            serviceRole(services, "restoring into it", "restore <file>"),
            file,
            services().backupSettings.dir,
          )
        : restoreBackup(file, services().settings.DATA_DIR, services().backupSettings.dir),
  };
}
