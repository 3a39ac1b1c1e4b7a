// The rows of a backup checked the way the live store would hold them, before a restore puts any of them back: a
// sign-up could only have stored an address the form takes, with a token of the store's form, once per address.
import { isBlobMark } from "~/newsletter/backups-reader.server";
import { EMAIL_MAX_LENGTH } from "~/newsletter/messages";
import { subscribeSchema } from "~/newsletter/schema.server";
import type { BackupRow } from "~/newsletter/stores/sqlite.server";
import { isUnsubscribeToken } from "~/newsletter/stores/types.server";

/** How many of a backup's bad rows the owner is shown (the count says how many there are in all). */
const SHOWN_PROBLEMS = 5;
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

/** SQLite's lower() folds ASCII letters only: the store's unique index says two addresses are one this way. */
export const storeKey = (email: string) => email.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** A created_at the store itself could have written: an ISO 8601 time in UTC. */
const STORED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$/;

/** What is wrong with one row on its own, or null. */
export function rowProblem(row: { email: unknown; createdAt: unknown; unsubscribeToken: unknown }): string | null {
  const { email, createdAt, unsubscribeToken: token } = row;
  if (typeof email !== "string") return `its address is ${showValue(email)}, not text`;
  if (email.length > EMAIL_MAX_LENGTH) return `its address is longer than ${EMAIL_MAX_LENGTH} characters`;
  // The form's own field rule; the form trims, the store holds what it took, so a padded value is not one.
  const parsed = subscribeSchema.shape.email.safeParse(email);
  if (!parsed.success || parsed.data !== email) {
    return `${showValue(email)} is not an address the sign-up form takes`;
  }
  if (typeof createdAt !== "string" || !STORED_TIME.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    return `its date, ${showValue(createdAt)}, is not a time the store writes`;
  }
  // A file from before tokens has none: the store gives each a new one.
  if (token !== null && !isUnsubscribeToken(token)) {
    return `its unsubscribe token, ${showValue(token)}, is not of the store's form`;
  }
  return null;
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
  const sameAs = (seen: Map<string, number>, key: unknown, at: number) => {
    if (typeof key !== "string") return undefined;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, at);
    return first;
  };
  rows.forEach((row, index) => {
    const at = index + 1;
    const own = eachRow ? rowProblem(row as Parameters<typeof rowProblem>[0]) : null;
    const email = typeof row.email === "string" ? storeKey(row.email) : undefined;
    const sameAddress = own ? undefined : sameAs(addresses, email, at);
    const sameToken = own || sameAddress ? undefined : sameAs(tokens, row.unsubscribeToken, at);
    if (own) problems.push(`row ${at}: ${own}`);
    else if (sameAddress) problems.push(`row ${at}: the address of row ${sameAddress} again`);
    else if (sameToken) problems.push(`row ${at}: the unsubscribe token of row ${sameToken} again`);
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
