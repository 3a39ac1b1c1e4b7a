// The tombstone's name for a mailbox: a keyed hash (HMAC-SHA-256) of its folded form, so the list remembers that a
// mailbox left without keeping its address. The key is the list's own (docs/decisions/026-one-ledger.md says why).
import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";

/** A fresh ledger key: 32 random bytes, hex. */
export const newLedgerKey = () => randomBytes(32).toString("hex");

/** The keyed hash of the mailbox `email` reaches (hex). The Supabase migration computes the same. */
// The key as a KeyObject, made once: given as a string, every hash would copy it into a new Buffer, and an import's
// hundreds of thousands of hashes filled buffer pools faster than V8 collected them (25 MiB over 200,000 rows).
// A list has one key, and a few more when it carries tombstones from earlier lists: a small map, never emptied.
const secrets = new Map<string, KeyObject>();
const secretOf = (key: string): KeyObject => {
  let object = secrets.get(key);
  if (!object) secrets.set(key, (object = createSecretKey(Buffer.from(key, "utf8"))));
  return object;
};

export const mailboxHash = (key: string, email: string) =>
  createHmac("sha256", secretOf(key)).update(mailboxKey(email)).digest("hex");

/** A stored hash's form. */
export const isMailboxHash = (value: unknown): value is string =>
  typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
