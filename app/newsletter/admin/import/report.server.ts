/**
 * What `npm run subscribers -- import` prints, and its exit code. Every row of the file is accounted for: added,
 * added suppressed, already on the list, a repeat of an earlier row, or refused with its line and reason.
 */
import { FORMAT_NAMES, type ImportFormat } from "~/newsletter/admin/import/formats.server";
import { suppressedTotal, type ImportPlan } from "~/newsletter/admin/import/plan.server";
import type { ImportSuppressionReason } from "~/newsletter/admin/import/status.server";

export interface WriteFailure {
  line: number;
  email: string;
  error: string;
}

/** One import, planned and (unless a dry run) written. */
export interface ImportOutcome {
  file: string;
  format: ImportFormat;
  dryRun: boolean;
  /** Rows read, the header aside. */
  rowCount: number;
  plan: ImportPlan;
  /** Rows the list failed to store (never with a dry run). */
  failed: WriteFailure[];
  /** Nothing was written because the file would suppress most of its rows and --yes was not given. */
  held?: boolean;
}

/**
 * Whether the plan would suppress more than half of the file's rows: a file read the wrong way round (a column whose
 * meaning was mistaken) looks exactly like this, and a suppression silently stops a reader's mail for good.
 */
export const suppressesMost = (suppressions: number, rowCount: number): boolean =>
  rowCount > 0 && suppressions * 2 > rowCount;

function mostSuppressedLines(outcome: ImportOutcome): string[] {
  const { plan, rowCount } = outcome;
  const suppressions = suppressedTotal(plan);
  if (!suppressesMost(suppressions, rowCount)) return [];
  const lines = [
    `Careful: ${suppressions} of ${rowCount} rows ${outcome.dryRun ? "would" : "will"} come in suppressed, ` +
      "more than half the file. Check with the tool that wrote it that these readers really left, bounced or complained.",
  ];
  if (outcome.held) lines.push("Nothing written. If the file says so, run the same import again with --yes.");
  else if (outcome.dryRun) lines.push("The import will write this file only with --yes.");
  return lines;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const REASON_WORDS: Record<ImportSuppressionReason, string> = {
  bounced: "bounced",
  complained: "complained",
  unsubscribed: "unsubscribed",
};

function suppressionSummary(plan: ImportPlan): string {
  return (["bounced", "complained", "unsubscribed"] as const)
    .filter((reason) => plan.suppressed[reason] > 0)
    .map((reason) => `${plan.suppressed[reason]} ${REASON_WORDS[reason]}`)
    .join(", ");
}

/** The report, one line per fact, ending in a newline. */
export function formatImportReport(outcome: ImportOutcome): string {
  const { plan, dryRun } = outcome;
  const will = (done: string, todo: string) => (dryRun ? todo : done);
  const lines = [`${outcome.file}: ${FORMAT_NAMES[outcome.format]}, ${plural(outcome.rowCount, "row")}.`];
  lines.push(`${plural(plan.added, "reader")} ${will("added", "would be added")} as confirmed.`);
  const suppressions = suppressedTotal(plan);
  if (suppressions > 0) {
    lines.push(
      `${plural(suppressions, "address", "addresses")} ${will("added", "would be added")} suppressed, ` +
        `never to be mailed: ${suppressionSummary(plan)}.`,
    );
  }
  if (plan.alreadyOnList > 0) {
    const verb = plan.alreadyOnList === 1 ? "is" : "are";
    lines.push(`${plural(plan.alreadyOnList, "address", "addresses")} ${verb} already on the list, left as is.`);
  }
  if (plan.duplicatesInFile.length > 0) {
    const verb = plan.duplicatesInFile.length === 1 ? "repeats" : "repeat";
    lines.push(`${plural(plan.duplicatesInFile.length, "row")} ${verb} an address of an earlier row:`);
    for (const { line, email, firstLine } of plan.duplicatesInFile)
      lines.push(`  line ${line}: ${email} (as line ${firstLine})`);
  }
  if (plan.refused.length > 0) {
    lines.push(`${plural(plan.refused.length, "row")} refused, not imported:`);
    for (const { line, text, reason } of plan.refused) lines.push(`  line ${line}: ${JSON.stringify(text)}: ${reason}`);
  }
  if (outcome.failed.length > 0) {
    lines.push(
      `${plural(outcome.failed.length, "row")} could not be written; run the same import again to add ` +
        `${outcome.failed.length === 1 ? "it" : "them"} (what was written is not written twice):`,
    );
    for (const { line, email, error } of outcome.failed) lines.push(`  line ${line}: ${email}: ${error}`);
  }
  lines.push(...mostSuppressedLines(outcome));
  if (dryRun && !outcome.held) lines.push("Dry run: nothing written.");
  return `${lines.join("\n")}\n`;
}

/**
 * 0 when every row was imported, already on the list, a repeat, or named as refused; 1 when a write failed; 3 when
 * the file was held back for --yes.
 */
export const importExitCode = (outcome: ImportOutcome): number => {
  if (outcome.held) return 3;
  return outcome.failed.length > 0 ? 1 : 0;
};
