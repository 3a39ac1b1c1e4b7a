/**
 * What double opt-in needs of a store, whichever holds the list: the embedded SQLite file (confirm-sqlite.server.ts)
 * or Supabase (confirm-supabase.server.ts). `now` is the clock in milliseconds. A method throws when the store cannot
 * answer; the callers (app/newsletter/confirm.server.ts) turn that into "failed" or a retry.
 */
import type { Consent } from "~/newsletter/consent.server";
import {
  confirmByHash,
  expirePending,
  issueToken,
  type SignUp,
  signUpPending,
} from "~/newsletter/confirm-sqlite.server";
import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { SqliteStore } from "~/newsletter/stores/sqlite.server";

export type IssueOutcome = "issued" | "gone" | "confirmed";

export interface ConfirmingStore {
  /** Stores a sign-up pending (or answers "duplicate"), and says whether a confirmation mail is due now. */
  signUp(email: string, consent: Consent, now: number): Promise<SignUp>;
  /** Attaches the hash of the token about to be mailed to a pending reader. */
  issueToken(email: string, tokenHash: string, now: number): Promise<IssueOutcome>;
  /** Confirms the pending reader this (mailed) token belongs to, if it is still valid. */
  confirm(token: string, now: number): Promise<"confirmed" | "unknown">;
  /** Removes pending readers whose 7 days are over. */
  expire(now: number): Promise<void>;
}

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

class StoreUnwritable extends Error {
  override name = "StoreUnwritable";
  constructor() {
    super("the list cannot be written now");
  }
}

/** The embedded store's confirmations, each write after the checks a sign-up makes. */
export function sqliteConfirmations(store: SqliteStore): ConfirmingStore {
  const write = <T>(work: (db: DatabaseSync) => T): T => {
    const result = store.whenWritable(work);
    if (result === null) throw new StoreUnwritable();
    return result;
  };
  return {
    signUp: async (email, consent, now) => write((db) => signUpPending(db, email, consent, now)),
    issueToken: async (email, tokenHash, now) => write((db) => issueToken(db, email, tokenHash, now)),
    confirm: async (token, now) => write((db) => confirmByHash(db, hashToken(token), now)),
    expire: async (now) => void write((db) => expirePending(db, now)),
  };
}
