// The rows of a backup checked the way the live store would hold them, before a restore puts any of them back: a
// sign-up could only have stored an address the form takes, with a token of the store's form, once per address.
import { showValue } from "~/newsletter/list/sqlite/backup-file.server";
import { consentVersion } from "~/newsletter/sign-up/consent.server";
import { EMAIL_MAX_LENGTH } from "~/newsletter/sign-up/messages";
import { subscribeSchema } from "~/newsletter/sign-up/schema.server";
import type { BackupRow, BackupTombstone, ConsentWording } from "~/newsletter/list/subscriber-list.server";
import { isLeftReason } from "~/newsletter/list/ledger";
import { isMailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { isUnsubscribeToken } from "~/newsletter/list/unsubscribe-token";

/** How many of a backup's bad rows the owner is shown (the count says how many there are in all). */
const SHOWN_PROBLEMS = 5;
/** SQLite's lower() folds ASCII letters only: the store's unique index says two addresses are one this way. */
export const storeKey = (email: string) => email.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** A created_at the store itself could have written: an ISO 8601 time in UTC. */
const STORED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$/;
const isStoredTime = (value: unknown) =>
  typeof value === "string" && STORED_TIME.test(value) && !Number.isNaN(Date.parse(value));

/** A backup's row as read: the columns of a file from before double opt-in are absent (undefined). */
export interface RawRow {
  email: unknown;
  createdAt: unknown;
  unsubscribeToken: unknown;
  state?: unknown;
  confirmedAt?: unknown;
  consentPage?: unknown;
  consentVersion?: unknown;
  confirmRequestedAt?: unknown;
  confirmTokenHash?: unknown;
  confirmTokenAt?: unknown;
  previousConfirmTokenHash?: unknown;
  previousConfirmTokenAt?: unknown;
  suppressedReason?: unknown;
  suppressedAt?: unknown;
  suppressedDetail?: unknown;
}

/** What is wrong with one row on its own, or null. */
export function rowProblem(row: RawRow): string | null {
  const { email, createdAt, unsubscribeToken: token } = row;
  if (typeof email !== "string") return `its address is ${showValue(email)}, not text`;
  if (email.length > EMAIL_MAX_LENGTH) return `its address is longer than ${EMAIL_MAX_LENGTH} characters`;
  // The form's own field rule; the form trims, the store holds what it took, so a padded value is not one.
  const parsed = subscribeSchema.shape.email.safeParse(email);
  if (!parsed.success || parsed.data !== email) {
    return `${showValue(email)} is not an address the sign-up form takes`;
  }
  if (!isStoredTime(createdAt)) return `its date, ${showValue(createdAt)}, is not a time the store writes`;
  // A file from before tokens has none: the store gives each a new one.
  if (token !== null && token !== undefined && !isUnsubscribeToken(token)) {
    return `its unsubscribe token, ${showValue(token)}, is not of the store's form`;
  }
  return consentProblem(row);
}

/** A consent wording's version: the start of its SHA-256 (app/newsletter/consent.server.ts). */
const WORDING_VERSION = /^[0-9a-f]{16}$/;
/** A confirmation token's SHA-256 (app/newsletter/confirm-store.server.ts). */
const TOKEN_HASH = /^[0-9a-f]{64}$/;
/** The page a sign-up came from: a path on the site. */
const isSitePath = (value: unknown) =>
  typeof value === "string" && value.startsWith("/") && value.length <= 2048 && !/[\s\p{Cc}]/u.test(value);
/**
 * An imported reader's consent record: where they agreed, in one line the import wrote
 * (app/newsletter/admin/import/consent.server.ts).
 */
const isImportNote = (value: unknown) =>
  typeof value === "string" && value.startsWith("imported ") && value.length <= 1000 && !/\p{Cc}/u.test(value);
/** Absent (a file from before the column) or null, which the store writes for "none". */
const none = (value: unknown) => value === null || value === undefined;

/**
 * What is wrong with a row's confirmation state and consent record, or null. Absent columns (a file from before double
 * opt-in) are fine: those readers are confirmed, as the schema's migration says.
 */
function consentProblem(row: RawRow): string | null {
  const { state, confirmedAt, consentPage: page, consentVersion: version, confirmTokenHash: hash } = row;
  if (state !== undefined && state !== "pending" && state !== "confirmed") {
    return `its state, ${showValue(state)}, is neither "pending" nor "confirmed"`;
  }
  const times = {
    confirmedAt,
    confirmRequestedAt: row.confirmRequestedAt,
    confirmTokenAt: row.confirmTokenAt,
    previousConfirmTokenAt: row.previousConfirmTokenAt,
    suppressedAt: row.suppressedAt,
  };
  for (const [name, time] of Object.entries(times)) {
    if (!none(time) && !isStoredTime(time)) return `its ${name}, ${showValue(time)}, is not a time the store writes`;
  }
  if (state === "pending" && !none(confirmedAt)) return `it is pending, yet confirmed at ${showValue(confirmedAt)}`;
  if (!none(page) && !isSitePath(page) && !isImportNote(page))
    return `its consent page, ${showValue(page)}, is not a path on the site`;
  if (!none(version) && !(typeof version === "string" && WORDING_VERSION.test(version))) {
    return `its wording version, ${showValue(version)}, is not of the store's form`;
  }
  for (const token of [hash, row.previousConfirmTokenHash]) {
    if (!none(token) && !(typeof token === "string" && TOKEN_HASH.test(token))) {
      return `its confirmation token hash, ${showValue(token)}, is not of the store's form`;
    }
  }
  return suppressionProblem(row);
}

const SUPPRESSED_REASONS = new Set(["bounced", "complained", "unsubscribed"]);

/** What is wrong with a row's suppression (why it gets no mail), or null. */
function suppressionProblem({ suppressedReason: reason, suppressedDetail: detail }: RawRow): string | null {
  if (!none(reason) && !(typeof reason === "string" && SUPPRESSED_REASONS.has(reason))) {
    return `its suppression reason, ${showValue(reason)}, is not one the store writes`;
  }
  if (!none(detail) && !(typeof detail === "string" && detail.length <= 4000)) {
    return `its suppression detail, ${showValue(detail)}, is not text the store writes`;
  }
  return null;
}

const isLedgerKey = (value: unknown): value is string => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

/** A backup's tombstones and their key, each as the store writes them; throws naming the first bad one. */
export function checkLedger(
  tombstones: readonly Record<string, unknown>[],
  key: unknown,
): { tombstones: BackupTombstone[]; key: string | null } {
  if (key !== null && !isLedgerKey(key)) {
    throw new Error(`a ledger key, ${showValue(key)}, that is not of the store's form; nothing was changed`);
  }
  for (const { mailbox, reason, at, key: carriedWith } of tombstones) {
    const problem = !isMailboxHash(mailbox)
      ? `a tombstone whose mailbox, ${showValue(mailbox)}, is not a keyed hash`
      : !isLeftReason(reason)
        ? `a tombstone whose reason, ${showValue(reason)}, is not one the store writes`
        : !isStoredTime(at)
          ? `a tombstone made at ${showValue(at)}, not a time the store writes`
          : carriedWith !== undefined && !isLedgerKey(carriedWith)
            ? `a carried tombstone whose key, ${showValue(carriedWith)}, is not of the store's form`
            : null;
    if (problem) throw new Error(`${problem}; nothing was changed`);
  }
  if (tombstones.length > 0 && key === null) throw new Error("tombstones without their key; nothing was changed");
  return { tombstones: tombstones as unknown as BackupTombstone[], key };
}

/**
 * Checks every row of a backup: each on its own (unless `eachRow` is false: the live list's own rows were taken by
 * earlier rules, and only what stops the store from opening the file counts there), and no two the store would refuse to hold together (one address in
 * two letter cases, one token twice). Answers the rows typed, or throws an error naming the first few bad ones.
 */
export function checkBackupRows(rows: readonly Record<string, unknown>[], { eachRow = true } = {}): BackupRow[] {
  const problems: string[] = [];
  const addresses = new Map<string, number>();
  const tokens = new Map<string, number>();
  const hashes = new Map<string, number>();
  const sameAs = (seen: Map<string, number>, key: unknown, at: number) => {
    if (typeof key !== "string") return undefined;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, at);
    return first;
  };
  rows.forEach((row, index) => {
    const at = index + 1;
    const own = eachRow ? rowProblem(row as unknown as RawRow) : null;
    const email = typeof row.email === "string" ? storeKey(row.email) : undefined;
    const sameAddress = own ? undefined : sameAs(addresses, email, at);
    const sameToken = own || sameAddress ? undefined : sameAs(tokens, row.unsubscribeToken, at);
    const sameHash = own || sameAddress || sameToken ? undefined : sameAs(hashes, row.confirmTokenHash, at);
    if (own) problems.push(`row ${at}: ${own}`);
    else if (sameAddress) problems.push(`row ${at}: the address of row ${sameAddress} again`);
    else if (sameToken) problems.push(`row ${at}: the unsubscribe token of row ${sameToken} again`);
    else if (sameHash) problems.push(`row ${at}: the confirmation token hash of row ${sameHash} again`);
  });
  if (problems.length > 0) {
    const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : "";
    const count = problems.length === 1 ? "1 row" : `${problems.length} rows`;
    throw new Error(
      `${count} the store could not hold (${problems.slice(0, SHOWN_PROBLEMS).join("; ")}${more}); nothing was changed`,
    );
  }
  return rows as unknown as BackupRow[];
}

/** The tokens of readers who left by their link, as a backup holds them: each must be of the store's form. */
export function checkUnsubscribedTokens(tokens: readonly unknown[]): string[] {
  const bad = tokens.findIndex((token) => !isUnsubscribeToken(token));
  if (bad >= 0) {
    throw new Error(
      `its list of readers who unsubscribed holds ${showValue(tokens[bad])}, not a token of the store's form; ` +
        "nothing was changed",
    );
  }
  return tokens as string[];
}

/** What is wrong with one consent wording of a backup, or null. */
function wordingProblem({ version, wording, firstUsedAt }: Record<string, unknown>): string | null {
  if (typeof wording !== "string") return `a consent wording that is ${showValue(wording)}, not text`;
  // The version is the digest of the words: a reader's record cannot be made to point at words they never saw.
  if (version !== consentVersion(wording)) {
    return `a consent wording whose version, ${showValue(version)}, is not the digest of its text`;
  }
  if (!isStoredTime(firstUsedAt)) {
    return `a consent wording first used at ${showValue(firstUsedAt)}, not a time the store writes`;
  }
  return null;
}

/** The consent wordings of a backup, each as the store writes one; throws naming the first bad one. */
export function checkWordings(wordings: readonly Record<string, unknown>[]): ConsentWording[] {
  for (const wording of wordings) {
    const problem = wordingProblem(wording);
    if (problem) throw new Error(`${problem}; nothing was changed`);
  }
  return wordings as unknown as ConsentWording[];
}
