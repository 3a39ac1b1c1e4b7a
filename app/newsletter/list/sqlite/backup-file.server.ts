// Reading a backup file in a child process with a time limit. A crafted file can make a read take as long as it likes
// (an index on a costly expression, rebuilt row by row by the integrity check; a view that never ends), and SQLite
// offers Node no way to interrupt a statement: a process can be killed. The child only reads; every decision about
// what it read is made in this process (readBackupContents, below).
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { describeCause } from "~/utils/log.server";
import { BACKUP_COLUMNS } from "~/newsletter/list/sqlite/backup-rows.server";

/**
 * The child's program: plain JavaScript (it runs apart from the build), node:sqlite only. It lists the schema's
 * objects first and reads no further when there is a view or a trigger (a view's query is the one read that may never
 * end; the store never makes either). BLOBs are sent as their size: the store never holds one, and the JSON stays
 * small.
 */
const READER = `
import { DatabaseSync } from "node:sqlite";
const send = (value) =>
  process.stdout.write(
    JSON.stringify(value, (_key, v) =>
      v instanceof Uint8Array ? { $blob: v.byteLength } : typeof v === "bigint" ? String(v) : v,
    ),
  );
const columns = (db, table) => db.prepare("select name from pragma_table_info(?)").all(table).map((row) => row.name);
let db;
try {
  db = new DatabaseSync(process.argv[1], { readOnly: true });
  const objects = db.prepare("select type, name from sqlite_schema").all();
  if (objects.some(({ type }) => type === "view" || type === "trigger")) {
    send({ objects });
  } else {
    const integrity = db.prepare("pragma integrity_check").all().map((row) => row.integrity_check);
    const subscriberColumns = columns(db, "newsletter_subscribers");
    const unsubscribedColumns = columns(db, "newsletter_unsubscribed");
    const readable = integrity.join() === "ok" && ["id", "email", "created_at"].every((c) => subscriberColumns.includes(c));
    // The columns asked for that the file has (an older one lacks some: the row then lacks that key).
    const present = JSON.parse(process.argv[2]).filter(([column]) => subscriberColumns.includes(column));
    const selected = present.map(([column, key]) => JSON.stringify(column) + " as " + JSON.stringify(key));
    const rows = readable
      ? db.prepare("select " + selected.join(", ") + " from newsletter_subscribers order by id").all()
      : [];
    const unsubscribed =
      readable && unsubscribedColumns.includes("unsubscribe_token")
        ? db.prepare("select unsubscribe_token as token from newsletter_unsubscribed").all().map((row) => row.token)
        : [];
    const wordingColumns = columns(db, "newsletter_consent_wordings");
    const wordings =
      readable && ["version", "wording", "first_used_at"].every((c) => wordingColumns.includes(c))
        ? db.prepare("select version, wording, first_used_at as firstUsedAt from newsletter_consent_wordings order by version").all()
        : [];
    const tombstoneColumns = columns(db, "newsletter_tombstones");
    const tombstones =
      readable && ["mailbox", "reason", "at"].every((c) => tombstoneColumns.includes(c))
        ? db.prepare("select mailbox, reason, at from newsletter_tombstones order by at, mailbox").all()
        : [];
    // Tombstones the list carries from an earlier list, each with the key it was made with.
    const carriedColumns = columns(db, "newsletter_carried_tombstones");
    if (readable && ["key", "mailbox", "reason", "at"].every((c) => carriedColumns.includes(c))) {
      tombstones.push(...db.prepare("select key, mailbox, reason, at from newsletter_carried_tombstones order by at, key, mailbox").all());
    }
    const ledgerColumns = columns(db, "newsletter_ledger");
    const keyRow =
      readable && ["name", "value"].every((c) => ledgerColumns.includes(c))
        ? db.prepare("select value from newsletter_ledger where name = 'key'").get()
        : undefined;
    const ledgerKey = keyRow ? keyRow.value : null;
    send({ objects, integrity, subscriberColumns, rows, unsubscribed, wordingColumns, wordings, tombstones, ledgerKey });
  }
} catch (error) {
  send({ error: String(error && error.message), errcode: error && error.errcode });
} finally {
  if (db && db.isOpen) db.close();
}
`;

/** What the child read; every value as SQLite gave it (a BLOB as { $blob: size }). */
export interface RawBackup {
  objects: { type: string; name: string }[];
  /** Absent when the child stopped at a view or a trigger. */
  integrity?: string[];
  subscriberColumns?: string[];
  rows?: Record<string, unknown>[];
  unsubscribed?: unknown[];
  /** None when the file has no newsletter_consent_wordings table (from before double opt-in). */
  wordingColumns?: string[];
  wordings?: Record<string, unknown>[];
  tombstones?: Record<string, unknown>[];
  ledgerKey?: unknown;
}

/** A BLOB as the child reports it. */
export const isBlobMark = (value: unknown): value is { $blob: number } =>
  typeof value === "object" && value !== null && typeof (value as { $blob?: unknown }).$blob === "number";

/** An error SQLite raised in the child, with its result code, as node:sqlite raises them here. */
class ReaderError extends Error {
  constructor(
    message: string,
    readonly errcode: number | undefined,
  ) {
    super(message);
  }
}

/**
 * Reads `file` in a child process killed after `limitMs`. Throws the child's SQLite error (with its errcode), or an
 * error saying the time ran out.
 */
export function readInChild(file: string, limitMs: number): RawBackup {
  // JSON escapes can make the text several times the file's size; a bound still, so a child cannot flood this one.
  const maxBuffer = 8 * (statSync(file).size + 1024 * 1024);
  let output: string;
  try {
    output = execFileSync(
      process.execPath,
      ["--input-type=module", "--no-warnings", "-e", READER, file, JSON.stringify(BACKUP_COLUMNS)],
      {
        encoding: "utf8",
        timeout: limitMs,
        killSignal: "SIGKILL",
        maxBuffer,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
  } catch (error) {
    const { code, signal } = error as { code?: string; signal?: string };
    if (signal === "SIGKILL" || code === "ETIMEDOUT") {
      throw new Error(`reading it took longer than ${limitMs / 1000} s`);
    }
    if (code === "ENOBUFS") throw new Error("what it holds is too large to be a backup of this list");
    throw error;
  }
  const read = JSON.parse(output) as RawBackup & { error?: string; errcode?: number };
  if (read.error !== undefined) throw new ReaderError(read.error, read.errcode);
  return read;
}

/** A value in a message: long enough to recognise, never a 50 MB line in the terminal. */
const SHOWN_CHARS = 60;

/** A stored value as the owner may read it in one line. */
export function showValue(value: unknown): string {
  if (value instanceof Uint8Array) return `a BLOB of ${value.byteLength} bytes`;
  if (isBlobMark(value)) return `a BLOB of ${value.$blob} bytes`;
  if (typeof value !== "string") return value === null ? "nothing" : `the ${typeof value} ${String(value)}`;
  const shown = JSON.stringify(value.slice(0, SHOWN_CHARS));
  return value.length > SHOWN_CHARS ? `${shown.slice(0, -1)}…" (${value.length} characters)` : shown;
}

/**
 * How long reading one file may take before it is given up on (the listing goes on with the next file). 300,000
 * subscribers read in about a second here.
 */
export const BACKUP_READ_LIMIT_MS = 60_000;

/** What a backup holds, as read: the rows unchecked (see backups-rows.server.ts); a BLOB is { $blob: its size }. */
export interface BackupContents {
  rows: Record<string, unknown>[];
  /** The tokens of readers who left by their link (none in a file from before that table). */
  unsubscribed: unknown[];
  /** The consent wordings readers agreed to, unchecked (none in a file from before double opt-in). */
  wordings: Record<string, unknown>[];
  /** Who left, by mailbox, unchecked (none in a file from before the ledger). */
  tombstones: Record<string, unknown>[];
  /** The key the tombstones were made with (null in a file from before the ledger). */
  ledgerKey: unknown;
}

/** newsletter_consent_wordings as the store makes it, or none at all (a file from before double opt-in). */
function checkWordingColumns(present: readonly string[] = []) {
  const missing = ["version", "wording", "first_used_at"].find((column) => !present.includes(column));
  if (present.length > 0 && missing) {
    throw new Error(`its newsletter_consent_wordings table has no ${missing} column`);
  }
}

/**
 * Refuses what the store never makes and a read would run: a view (a query of its own, which may never end) or a
 * trigger, and a newsletter_subscribers that is not a table.
 */
function checkSchemaObjects(objects: RawBackup["objects"]) {
  const foreign = objects.find(({ type }) => type === "view" || type === "trigger");
  if (foreign) throw new Error(`it has a ${foreign.type} (${showValue(foreign.name)}), which the store never makes`);
  if (!objects.some(({ type, name }) => type === "table" && name === "newsletter_subscribers")) {
    throw new Error("it has no newsletter_subscribers table");
  }
}

/** Reads a backup's contents after checking that it is one; see readBackup. */
export function readBackupContents(file: string, limitMs = BACKUP_READ_LIMIT_MS): BackupContents {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  try {
    const read = readInChild(file, limitMs);
    checkSchemaObjects(read.objects);
    const integrity = read.integrity ?? [];
    if (integrity.length !== 1 || integrity[0] !== "ok") {
      throw new Error(`its integrity check fails (${integrity.join("; ")})`);
    }
    const columns = new Set(read.subscriberColumns);
    if (!columns.has("email") || !columns.has("created_at")) throw new Error("it has no newsletter_subscribers table");
    if (!columns.has("id")) throw new Error("its newsletter_subscribers table has no id column");
    checkWordingColumns(read.wordingColumns);
    return {
      rows: read.rows ?? [],
      unsubscribed: read.unsubscribed ?? [],
      wordings: read.wordings ?? [],
      tombstones: read.tombstones ?? [],
      ledgerKey: read.ledgerKey ?? null,
    };
  } catch (error) {
    throw new Error(`${file} is not a backup of the newsletter list: ${describeCause(error).replace(/^Error: /, "")}`, {
      cause: error,
    });
  }
}
