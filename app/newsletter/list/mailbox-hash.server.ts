// The tombstone's name for a mailbox: a keyed hash (HMAC-SHA-256) of its folded form, so the list remembers that a
// mailbox left without keeping its address. The key is the list's own (docs/decisions/026-one-ledger.md says why).
import { createHmac, randomBytes } from "node:crypto";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";

/** A fresh ledger key: 32 random bytes, hex. */
export const newLedgerKey = () => randomBytes(32).toString("hex");

/** The keyed hash of the mailbox `email` reaches (hex). The Supabase migration computes the same. */
export const mailboxHash = (key: string, email: string) =>
  createHmac("sha256", key).update(mailboxKey(email)).digest("hex");

/** A stored hash's form. */
export const isMailboxHash = (value: unknown): value is string =>
  typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
