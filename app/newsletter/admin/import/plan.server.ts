/**
 * What an import will do with each row, decided before anything is written (so `--dry-run` and the real run print
 * the same plan). Addresses are checked with the sign-up's own rule; the list is asked only whether it knows an
 * address, and an address it knows keeps its own record whatever the file says.
 */
import type { ImportRow } from "~/newsletter/admin/import/read-rows.server";
import { strongerStatus, type ImportSuppressionReason, type RowStatus } from "~/newsletter/admin/import/status.server";
import { emailIssues } from "~/newsletter/sign-up/schema.server";
import { EMAIL_INVALID_MESSAGE, EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE } from "~/newsletter/sign-up/messages";

export interface PlannedReader {
  line: number;
  email: string;
  originalDate: string | null;
  statusInFile: string | null;
}

export interface PlannedSuppression extends PlannedReader {
  reason: ImportSuppressionReason;
}

export interface Refusal {
  line: number;
  /** The address cell as written (empty when the row has none). */
  text: string;
  reason: string;
}

export interface ImportPlan {
  /** New readers, imported as confirmed. */
  add: PlannedReader[];
  /** Addresses the file says left, bounced or complained: imported (or, when an import brought them, made) suppressed. */
  suppressAdd: PlannedSuppression[];
  /** Addresses the list already knows: left untouched. */
  alreadyOnList: { line: number; email: string }[];
  /** Rows not imported, each with its reason. */
  refused: Refusal[];
  /** Rows repeating an address of an earlier row (any letter case): that row speaks for both. */
  duplicatesInFile: { line: number; email: string; firstLine: number }[];
}

/** How the list compares addresses: both stores are unique on the lower-cased address. */
export const addressKey = (email: string) => email.toLowerCase();

const ISSUE_WORDS = new Map([
  [EMAIL_INVALID_MESSAGE, "not a valid address"],
  [EMAIL_TOO_LONG_MESSAGE, `longer than ${EMAIL_MAX_LENGTH} characters`],
]);

/** Why the sign-up would refuse `address`, in the report's words, or null when it would take it. */
export function addressRefusal(address: string): string | null {
  if (address === "") return "no address";
  const [first] = emailIssues(address);
  return first === undefined ? null : (ISSUE_WORDS.get(first) ?? first);
}

interface Entry {
  row: ImportRow;
  status: RowStatus;
  /** The words of the row whose status stands. */
  said: string | null;
}

export function planImport(rows: readonly ImportRow[], isOnList: (email: string) => boolean): ImportPlan {
  const plan: ImportPlan = { add: [], suppressAdd: [], alreadyOnList: [], refused: [], duplicatesInFile: [] };
  const entries = new Map<string, Entry>();
  for (const row of rows) {
    const refusal = addressRefusal(row.address);
    if (refusal) {
      plan.refused.push({ line: row.line, text: row.address, reason: refusal });
      continue;
    }
    const key = addressKey(row.address);
    const seen = entries.get(key);
    if (seen) {
      plan.duplicatesInFile.push({ line: row.line, email: row.address, firstLine: seen.row.line });
      // One export that says both "subscribed" and "unsubscribed" for an address is taken at its most careful word.
      const stronger = strongerStatus(seen.status, row.status);
      if (stronger !== seen.status) Object.assign(seen, { status: stronger, said: row.statusInFile });
    } else entries.set(key, { row, status: row.status, said: row.statusInFile });
  }
  for (const { row, status, said } of entries.values()) {
    const reader: PlannedReader = {
      line: row.line,
      email: row.address,
      originalDate: row.originalDate,
      statusInFile: said,
    };
    // A file's word that a reader left counts whatever the order of the files: the list decides (ledger.ts).
    if (status.kind === "suppressed") plan.suppressAdd.push({ ...reader, reason: status.reason });
    else if (isOnList(row.address)) plan.alreadyOnList.push({ line: row.line, email: row.address });
    else if (status.kind === "refused") plan.refused.push({ line: row.line, text: row.address, reason: status.reason });
    else plan.add.push(reader);
  }
  plan.refused.sort((a, b) => a.line - b.line);
  return plan;
}
