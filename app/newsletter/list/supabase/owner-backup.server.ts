// The owner's backup and restore of the Supabase list (npm run subscribers -- backup / restore), with the service role
// key given to that command alone. Both go through the database's own functions
// (supabase/migrations/20261128400000_newsletter_owner_backup.sql, 20261128500000_newsletter_carried_tombstones.sql) in
// bounded pages: the backup reads the readers, then the tombstones, its own and those it carries with their keys (a
// reader who leaves while it reads is then in both, and a restore leaves them out), then the wordings; the restore
// writes the tombstones first, then the wordings and the readers, each page one transaction.
import { fetchWithoutRedirects } from "~/newsletter/list/supabase/anon-writes.server";
import { type RpcCall, rpcCaller } from "~/newsletter/list/supabase/rpc.server";
import type { BackupPage } from "~/newsletter/list/sqlite/paged-backup-file.server";
import type { BackupRow, BackupTombstone, ConsentWording } from "~/newsletter/list/subscriber-list.server";
import { createServerSupabaseClient } from "~/utils/supabase.server";

export interface SupabaseOwnerOptions {
  url: string;
  /** SUPABASE_SERVICE_ROLE_KEY: only the service role may call the backup and restore functions. */
  serviceRoleKey: string;
  timeoutMs?: number;
  /** Items per request, each way. */
  pageSize?: number;
}

/** What a restore did to the Supabase list. */
export interface SupabaseRestoreReport {
  added: string[];
  alreadyThere: number;
  /** Readers of the backup whose mailbox left the list since: left out. */
  unsubscribedSince: number;
  /** Carried: made with another list's key, kept with that key (the list never held the addresses to hash again). */
  tombstones: { added: number; kept: number; carried: number };
}

/** A backup to put back, checked by restore's own check first (app/newsletter/backups/restore.server.ts). */
export interface CheckedContents {
  rows: readonly BackupRow[];
  wordings: readonly ConsentWording[];
  ledger: { key: string | null; tombstones: readonly BackupTombstone[] };
}

type Part = "readers" | "tombstones" | "wordings";

/** A time as the embedded store writes it (ISO 8601 in UTC): PostgreSQL's JSON says +00:00 and microseconds. */
const storedTime = (value: unknown): string | null =>
  typeof value === "string" ? new Date(value).toISOString() : null;

const TIME_KEYS = [
  "createdAt",
  "confirmedAt",
  "confirmRequestedAt",
  "confirmTokenAt",
  "previousConfirmTokenAt",
  "suppressedAt",
  "at",
  "firstUsedAt",
] as const;

/** A page's item with its times in the store's form, and without the database's own id. */
function asStored(item: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = item;
  for (const key of TIME_KEYS) if (key in rest) rest[key] = storedTime(rest[key]);
  return rest;
}

/** Where each part's next page starts. */
const afterOf: Record<Part, (item: Record<string, unknown>) => string> = {
  readers: (item) => String(item.id),
  // A carried tombstone has its key: the part is in the order of (mailbox, key).
  tombstones: (item) => (typeof item.key === "string" ? `${String(item.mailbox)}:${item.key}` : String(item.mailbox)),
  wordings: (item) => String(item.version),
};

const slices = <T>(items: readonly T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, n) => items.slice(n * size, n * size + size));

export function supabaseOwnerBackup(options: SupabaseOwnerOptions) {
  const { url, serviceRoleKey, timeoutMs = 30_000, pageSize = 1000 } = options;
  return ownerBackupOver(rpcCaller(createServerSupabaseClient(url, serviceRoleKey, fetchWithoutRedirects), timeoutMs), {
    pageSize,
  });
}

/** The backup and restore over any way of calling the database's functions as the service role. */
export function ownerBackupOver(call: RpcCall, { pageSize = 1000 }: { pageSize?: number } = {}) {
  async function* pagesOf(part: Part): AsyncGenerator<{ key: string | null; items: Record<string, unknown>[] }> {
    let after: string | null = null;
    for (;;) {
      const answer = (await call("newsletter_backup_page", { part, after, size: pageSize })) as {
        key: string | null;
        rows: Record<string, unknown>[];
      } | null;
      const items = answer?.rows ?? [];
      if (!answer || !Array.isArray(items)) throw new Error(`Supabase newsletter_backup_page gave no ${part}`);
      if (items.length > 0) yield { key: answer.key, items: items.map(asStored) };
      if (items.length < pageSize) return;
      after = afterOf[part](items[items.length - 1]!);
    }
  }

  return {
    /** Every page of the list, for writePagedBackup: readers, then tombstones, then wordings. */
    async *pages(): AsyncGenerator<BackupPage> {
      for await (const { key, items } of pagesOf("readers")) yield { key, rows: items as unknown as BackupRow[] };
      for await (const { key, items } of pagesOf("tombstones")) {
        yield { key, tombstones: items as unknown as BackupTombstone[] };
      }
      for await (const { key, items } of pagesOf("wordings")) {
        yield { key, wordings: items as unknown as ConsentWording[] };
      }
    },

    /** Puts a checked backup back, page by page (tombstones first); see the migration for each rule. */
    async restore(backup: CheckedContents): Promise<SupabaseRestoreReport> {
      const report: SupabaseRestoreReport = {
        added: [],
        alreadyThere: 0,
        unsubscribedSince: 0,
        tombstones: { added: 0, kept: 0, carried: 0 },
      };
      const send = async (body: { tombstones?: unknown; wordings?: unknown; readers?: unknown }) => {
        const answer = (await call("newsletter_restore_page", {
          backup_key: backup.ledger.key,
          readers: body.readers ?? [],
          tombstones: body.tombstones ?? [],
          wordings: body.wordings ?? [],
        })) as {
          added: string[];
          alreadyThere: number;
          leftSince: number;
          tombstonesAdded: number;
          tombstonesKept: number;
          tombstonesCarried: number;
        };
        report.added.push(...answer.added);
        report.alreadyThere += answer.alreadyThere;
        report.unsubscribedSince += answer.leftSince;
        report.tombstones.added += answer.tombstonesAdded;
        report.tombstones.kept += answer.tombstonesKept;
        report.tombstones.carried += answer.tombstonesCarried;
      };
      // The key first, even with nothing else: a new project's list takes the backup's key before anything is written.
      await send({});
      for (const tombstones of slices(backup.ledger.tombstones, pageSize)) await send({ tombstones });
      for (const wordings of slices(backup.wordings, pageSize)) await send({ wordings });
      for (const readers of slices(backup.rows, pageSize)) await send({ readers });
      return report;
    },
  };
}
