/**
 * What an import does with each row, decided the same way for `--dry-run` and the real run (so both print the same
 * plan). A first reading of the file (FileSurvey) finds the repeats and the status that stands for each address, and
 * counts the suppressions before anything is written; a second one meets each address's first row and takes its step.
 * Addresses are checked with the sign-up's own rule; the list is asked only whether it knows an address, and an
 * address it knows keeps its own record whatever the file says.
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

export interface Duplicate {
  line: number;
  email: string;
  firstLine: number;
}

/** What an import does (or, in a dry run, would do), counted; the rows it leaves out are named. */
export interface ImportPlan {
  /** New readers, imported as confirmed. */
  added: number;
  /** Addresses the file says left, bounced or complained: imported (or, when an import brought them, made) suppressed. */
  suppressed: Record<ImportSuppressionReason, number>;
  /** Addresses the list already knows: left untouched. */
  alreadyOnList: number;
  /** Rows not imported, each with its reason, in the file's order. */
  refused: Refusal[];
  /** Rows repeating an address of an earlier row (any letter case): that row speaks for both. */
  duplicatesInFile: Duplicate[];
}

export const emptyPlan = (): ImportPlan => ({
  added: 0,
  suppressed: { bounced: 0, complained: 0, unsubscribed: 0 },
  alreadyOnList: 0,
  refused: [],
  duplicatesInFile: [],
});

/** Every address the plan brings in suppressed. */
export const suppressedTotal = (plan: ImportPlan): number =>
  plan.suppressed.bounced + plan.suppressed.complained + plan.suppressed.unsubscribed;

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

/** The status that stands for an address, and the words of the row it comes from. */
interface Standing {
  status: RowStatus;
  said: string | null;
}

/**
 * The first reading of a file: the rows the address rule refuses, the rows that repeat an address, and the status
 * that stands for each address. It keeps each address's first line, and a standing only for an address some row of
 * which does not simply say "active" (the few a file has, shared between rows): never the rows themselves, so a long
 * file costs its addresses, not its rows. The second reading (`firstOf`) then meets the rows again in order.
 */
export class FileSurvey {
  rowCount = 0;
  /** Rows the address rule refuses, in order. */
  readonly refusedAddresses: Refusal[] = [];
  readonly duplicatesInFile: Duplicate[] = [];
  private readonly firstLines = new Map<string, number>();
  private readonly standings = new Map<string, Standing>();
  private readonly sharedStandings = new Map<RowStatus, Map<string | null, Standing>>();

  private shared(status: RowStatus, said: string | null): Standing {
    let bySaid = this.sharedStandings.get(status);
    if (!bySaid) this.sharedStandings.set(status, (bySaid = new Map()));
    let standing = bySaid.get(said);
    if (!standing) bySaid.set(said, (standing = { status, said }));
    return standing;
  }

  /** Reads one row (in the file's order). */
  add(row: ImportRow): void {
    this.rowCount += 1;
    const refusal = addressRefusal(row.address);
    if (refusal) {
      this.refusedAddresses.push({ line: row.line, text: row.address, reason: refusal });
      return;
    }
    const key = addressKey(row.address);
    const firstLine = this.firstLines.get(key);
    if (firstLine === undefined) {
      this.firstLines.set(key, row.line);
      if (row.status.kind !== "active") this.standings.set(key, this.shared(row.status, row.statusInFile));
      return;
    }
    this.duplicatesInFile.push({ line: row.line, email: row.address, firstLine });
    // One export that says both "subscribed" and "unsubscribed" for an address is taken at its most careful word.
    const seen = this.standings.get(key)?.status ?? ACTIVE;
    if (strongerStatus(seen, row.status) !== seen) this.standings.set(key, this.shared(row.status, row.statusInFile));
  }

  /** Addresses the file brings in suppressed, whatever the list says: a file's word that a reader left counts. */
  suppressions(): number {
    let count = 0;
    for (const { status } of this.standings.values()) if (status.kind === "suppressed") count += 1;
    return count;
  }

  /**
   * The reader of `row` with the status that stands for its address, when `row` is its address's first row; null for
   * a row the survey has named already (a repeat, or an address the rule refuses). `row` must have been surveyed.
   */
  firstOf(row: ImportRow): { reader: PlannedReader; status: RowStatus } | null {
    const key = addressKey(row.address);
    // Only a row the address rule takes can be its address's first: a line is one row's.
    if (this.firstLines.get(key) !== row.line) return null;
    const standing = this.standings.get(key) ?? { status: row.status, said: row.statusInFile };
    const { line, address: email, originalDate } = row;
    return { reader: { line, email, originalDate, statusInFile: standing.said }, status: standing.status };
  }
}

const ACTIVE: RowStatus = { kind: "active" };

/** What the import does with an address's first row: the list's answer is asked only when it decides. */
export type Step =
  | { kind: "add"; reader: PlannedReader }
  | { kind: "suppress"; reader: PlannedSuppression }
  | { kind: "known"; line: number; email: string }
  | { kind: "refused"; refusal: Refusal };

/** Whether the list must be asked about the reader: a file's word that they left counts either way. */
export const asksTheList = (status: RowStatus): boolean => status.kind !== "suppressed";

export function stepOf(first: { reader: PlannedReader; status: RowStatus }, onList: boolean): Step {
  const { reader, status } = first;
  // A file's word that a reader left counts whatever the order of the files: the list decides (ledger.ts).
  if (status.kind === "suppressed") return { kind: "suppress", reader: { ...reader, reason: status.reason } };
  if (onList) return { kind: "known", line: reader.line, email: reader.email };
  if (status.kind === "refused") {
    return { kind: "refused", refusal: { line: reader.line, text: reader.email, reason: status.reason } };
  }
  return { kind: "add", reader };
}
