/**
 * The stub's answers to the double opt-in functions of supabase/migrations/20261124100000_newsletter_confirmation.sql
 * (newsletter_sign_up, newsletter_issue_confirm_token, newsletter_confirm), as PostgREST sends them: a text result as
 * a JSON string, a boolean as true or false, unknown arguments as PGRST202. The stub's rows stay the one list; this
 * keeps each row's confirmation state beside it. Like the migration once a signing key is stored, a direct insert is
 * pending. As 20261127120000 has it, the previous mail's token confirms too (a second mail leaves the first link
 * working).
 *
 * Run by `node` through stub.ts too: erasable TypeScript only.
 */
import { createHash, createHmac } from "node:crypto";
import { rpcArguments } from "./rpc-arguments.ts";

const DAY_MS = 24 * 60 * 60_000;
const SIGNATURE_WINDOW_MS = 10 * 60_000;

export interface ConfirmRows {
  /** Whether a row with this lower-cased address exists. */
  has(lower: string): boolean;
  add(email: string): void;
  remove(lower: string): void;
  /** Whether the reader is suppressed (suppression.ts): a duplicate that is never mailed. */
  suppressed(lower: string): boolean;
}

export interface ConfirmRecord {
  state: "pending" | "confirmed";
  requestedAt: number;
  tokenHash: string | null;
  tokenAt: number | null;
  previousHash?: string | null;
  previousAt?: number | null;
  page: string | null;
  version: string | null;
}

export interface ConfirmRpcs {
  /** A row's state: undefined when the address is not on the list; rows from before count as confirmed. */
  stateOf(email: string): ConfirmRecord["state"] | undefined;
  recordOf(email: string): ConfirmRecord | undefined;
  readonly wordings: ReadonlyMap<string, string>;
  directInsert(email: string): void;
  /** The reply to POST /rest/v1/rpc/<name>, or null when the function is not one of these. */
  handle(name: string, body: string): { status: number; body: unknown } | null;
  reset(): void;
}

const notFound = (name: string) => ({
  status: 404,
  body: {
    code: "PGRST202",
    details: null,
    hint: null,
    message: `Could not find the function public.${name} with the given parameters in the schema cache`,
  },
});

export function createConfirmRpcs(signingKey: string, rows: ConfirmRows, now: () => number = Date.now): ConfirmRpcs {
  let records = new Map<string, ConfirmRecord>();
  let wordings = new Map<string, string>();

  const expire = () => {
    for (const [lower, record] of records) {
      if (!rows.has(lower)) records.delete(lower);
      else if (record.state === "pending" && record.requestedAt <= now() - 7 * DAY_MS) {
        records.delete(lower);
        rows.remove(lower);
      }
    }
  };

  const signUp = (args: Record<string, unknown>) => {
    const address = String(args.address);
    const lower = address.toLowerCase();
    expire();
    if (rows.has(lower)) {
      const record = records.get(lower);
      if (!rows.suppressed(lower) && record?.state === "pending" && record.requestedAt <= now() - DAY_MS) {
        record.requestedAt = now();
        return "resend";
      }
      return "duplicate";
    }
    rows.add(address);
    if (!wordings.has(String(args.wording_version))) wordings.set(String(args.wording_version), String(args.wording));
    records.set(lower, {
      state: "pending",
      requestedAt: now(),
      tokenHash: null,
      tokenAt: null,
      page: String(args.page),
      version: String(args.wording_version),
    });
    return "subscribed";
  };

  const issue = (args: Record<string, unknown>) => {
    const address = String(args.address);
    const issuedAt = Number(args.issued_at);
    const expected = createHmac("sha256", signingKey)
      .update(`${address}\n${String(args.token_hash)}\n${issuedAt}`)
      .digest("hex");
    if (args.signature !== expected || Math.abs(now() - issuedAt) > SIGNATURE_WINDOW_MS) return "refused";
    expire();
    const lower = address.toLowerCase();
    if (!rows.has(lower) || rows.suppressed(lower)) return "gone";
    const record = records.get(lower);
    if (!record || record.state !== "pending") return "confirmed";
    // The same token again (a retry of the same mail) keeps the one before it.
    if (record.tokenHash !== String(args.token_hash)) {
      record.previousHash = record.tokenHash;
      record.previousAt = record.tokenAt;
    }
    record.tokenHash = String(args.token_hash);
    record.tokenAt = now();
    return "issued";
  };

  // The hash stays with a confirmed reader, so a reused link answers 'already'; a suppressed reader's opens nothing.
  const confirm = (token: string): "confirmed" | "already" | "unknown" => {
    const hash = createHash("sha256").update(token).digest("hex");
    for (const [lower, record] of records) {
      const valid = (at: number | null | undefined) => typeof at === "number" && at > now() - 7 * DAY_MS;
      const mine = record.tokenHash === hash || record.previousHash === hash;
      if (!rows.has(lower) || rows.suppressed(lower) || !mine) continue;
      const latest = record.tokenHash === hash && valid(record.tokenAt);
      const previous = record.previousHash === hash && valid(record.previousAt);
      if (record.state === "pending" && (latest || previous)) {
        record.state = "confirmed";
        return "confirmed";
      }
      if (record.state === "confirmed") return "already";
    }
    return "unknown";
  };

  return {
    stateOf(email) {
      const lower = email.toLowerCase();
      if (!rows.has(lower)) return undefined;
      return records.get(lower)?.state ?? "confirmed";
    },
    recordOf: (email) => records.get(email.toLowerCase()),
    get wordings() {
      return wordings;
    },
    directInsert(email) {
      const page = null;
      records.set(email.toLowerCase(), {
        state: "pending",
        requestedAt: now(),
        tokenHash: null,
        tokenAt: null,
        page,
        version: null,
      });
    },
    handle(name, body) {
      if (name === "newsletter_sign_up") {
        const args = rpcArguments(body, ["address", "page", "wording_version", "wording"]);
        return args ? { status: 200, body: signUp(args) } : notFound(name);
      }
      if (name === "newsletter_issue_confirm_token") {
        const args = rpcArguments(body, ["address", "token_hash", "issued_at", "signature"]);
        return args ? { status: 200, body: issue(args) } : notFound(name);
      }
      if (name === "newsletter_confirm") {
        const args = rpcArguments(body, ["token"]);
        return args ? { status: 200, body: confirm(String(args.token)) === "confirmed" } : notFound(name);
      }
      if (name === "newsletter_confirm_reader") {
        const args = rpcArguments(body, ["token"]);
        return args ? { status: 200, body: confirm(String(args.token)) } : notFound(name);
      }
      return null;
    },
    reset() {
      records = new Map();
      wordings = new Map();
    },
  };
}
