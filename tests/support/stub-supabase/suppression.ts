/**
 * The stub's answers to the suppression functions of supabase/migrations/20261127000000_newsletter_suppression.sql
 * (newsletter_suppress, newsletter_soft_bounce, newsletter_delivered, newsletter_unsuppress), as PostgREST sends them:
 * a text result as a JSON string, unknown arguments as PGRST202. Like the database, each answers 'refused' and
 * changes nothing unless the call comes with the service role key or is signed with the stored signing key.
 *
 * Run by `node` through stub.ts too: erasable TypeScript only.
 */
import { createHmac } from "node:crypto";
import { rpcArguments } from "./rpc-arguments.ts";

const SIGNATURE_WINDOW_MS = 10 * 60_000;
const SOFT_BOUNCES_TO_SUPPRESS = 3;

export interface SuppressionRecord {
  /** 'unsubscribed': an import's word (import.ts), or the reader's own unsubscribe at a relay. */
  reason: "bounced" | "complained" | "unsubscribed" | null;
  detail: string | null;
  at: number | null;
  softBounces: number;
  lastSoftAt: number | null;
}

export interface SuppressionRpcs {
  /** The reader's suppression and soft bounces (lower-cased address), or undefined when none was ever recorded. */
  recordOf(email: string): SuppressionRecord | undefined;
  isSuppressed(email: string): boolean;
  /** Records a suppression as a new row's columns hold it (an import of a reader who left or bounced elsewhere). */
  record(email: string, reason: NonNullable<SuppressionRecord["reason"]>, detail: string, at: number): void;
  /** A new row starts with nothing recorded (the address left and came back). */
  forget(email: string): void;
  /** Calls of these functions, whatever their outcome. */
  readonly calls: number;
  /** The reply to POST /rest/v1/rpc/<name>, or null when the function is not one of these. */
  handle(name: string, body: string, serviceRole: boolean): { status: number; body: unknown } | null;
  reset(): void;
}

const ARGUMENTS: Record<string, string[]> = {
  newsletter_suppress: ["address", "reason", "detail", "happened_at", "issued_at", "signature"],
  newsletter_soft_bounce: ["address", "detail", "happened_at", "issued_at", "signature"],
  newsletter_delivered: ["address", "issued_at", "signature"],
  newsletter_unsuppress: ["address", "issued_at", "signature"],
};

/** The signed fields of each function, in the order the database joins them (the relay's words last). */
function signedFields(name: string, args: Record<string, unknown>): string[] {
  const address = String(args.address);
  if (name === "newsletter_suppress") {
    return [name, address, String(args.reason), String(args.happened_at), String(args.detail)];
  }
  if (name === "newsletter_soft_bounce") return [name, address, String(args.happened_at), String(args.detail)];
  return [name, address];
}

export function createSuppressionRpcs(
  signingKey: string | undefined,
  has: (lower: string) => boolean,
  now: () => number = Date.now,
): SuppressionRpcs {
  let records = new Map<string, SuppressionRecord>();
  let calls = 0;

  const trusted = (name: string, args: Record<string, unknown>, serviceRole: boolean) => {
    if (serviceRole) return true;
    const issuedAt = Number(args.issued_at);
    if (!signingKey || !Number.isFinite(issuedAt) || Math.abs(now() - issuedAt) > SIGNATURE_WINDOW_MS) return false;
    const expected = createHmac("sha256", signingKey)
      .update(`${signedFields(name, args).join("\n")}\n${issuedAt}`)
      .digest("hex");
    return args.signature === expected;
  };

  const recordFor = (lower: string): SuppressionRecord => {
    let record = records.get(lower);
    if (!record) {
      record = { reason: null, detail: null, at: null, softBounces: 0, lastSoftAt: null };
      records.set(lower, record);
    }
    return record;
  };

  const suppress = (lower: string, reason: "bounced" | "complained" | "unsubscribed", detail: string, at: number) => {
    if (!has(lower)) return "unknown";
    const record = recordFor(lower);
    if (record.reason) return "already";
    Object.assign(record, { reason, detail, at });
    return "suppressed";
  };

  const answer = (name: string, args: Record<string, unknown>): string => {
    const lower = String(args.address).toLowerCase();
    const at = Number(args.happened_at);
    switch (name) {
      case "newsletter_suppress": {
        const reason = args.reason;
        if (reason !== "bounced" && reason !== "complained" && reason !== "unsubscribed") {
          throw new Error("reason must be bounced, complained or unsubscribed");
        }
        return suppress(lower, reason, String(args.detail), at);
      }
      case "newsletter_soft_bounce": {
        if (!has(lower)) return "unknown";
        const record = recordFor(lower);
        if (record.reason || record.lastSoftAt === at) return "already";
        record.softBounces += 1;
        record.lastSoftAt = at;
        if (record.softBounces < SOFT_BOUNCES_TO_SUPPRESS) return "counted";
        const detail = `${record.softBounces} soft bounces in a row; the last: ${String(args.detail)}`;
        return suppress(lower, "bounced", detail, at);
      }
      case "newsletter_delivered":
        if (records.has(lower)) recordFor(lower).softBounces = 0;
        return "done";
      default: {
        const record = records.get(lower);
        if (!has(lower) || !record?.reason) return "not-suppressed";
        records.set(lower, { reason: null, detail: null, at: null, softBounces: 0, lastSoftAt: null });
        return "lifted";
      }
    }
  };

  return {
    recordOf: (email) => records.get(email.toLowerCase()),
    isSuppressed: (email) => has(email.toLowerCase()) && Boolean(records.get(email.toLowerCase())?.reason),
    forget: (email) => void records.delete(email.toLowerCase()),
    record(email, reason, detail, at) {
      records.set(email.toLowerCase(), { reason, detail, at, softBounces: 0, lastSoftAt: null });
    },
    get calls() {
      return calls;
    },
    handle(name, body, serviceRole) {
      const names = ARGUMENTS[name];
      if (!names) return null;
      calls += 1;
      const args = rpcArguments(body, names);
      if (!args) {
        const message = `Could not find the function public.${name} with the given parameters in the schema cache`;
        return { status: 404, body: { code: "PGRST202", details: null, hint: null, message } };
      }
      if (!trusted(name, args, serviceRole)) return { status: 200, body: "refused" };
      try {
        return { status: 200, body: answer(name, args) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { status: 400, body: { code: "P0001", details: null, hint: null, message } };
      }
    },
    reset() {
      records = new Map();
      calls = 0;
    },
  };
}
