// The import's plan of a few rows, every row's fate listed (the command itself only counts what it adds): the same
// two readings runImport makes, over rows held in memory.
import {
  asksTheList,
  emptyPlan,
  FileSurvey,
  stepOf,
  type Duplicate,
  type ImportPlan,
  type PlannedReader,
  type PlannedSuppression,
  type Refusal,
} from "~/newsletter/admin/import/plan.server";
import type { ImportRow } from "~/newsletter/admin/import/read-rows.server";

export interface ListedPlan {
  add: PlannedReader[];
  suppressAdd: PlannedSuppression[];
  alreadyOnList: { line: number; email: string }[];
  refused: Refusal[];
  duplicatesInFile: Duplicate[];
}

export function planRows(rows: readonly ImportRow[], isOnList: (email: string) => boolean): ListedPlan {
  const survey = new FileSurvey();
  for (const row of rows) survey.add(row);
  const plan: ListedPlan = { add: [], suppressAdd: [], alreadyOnList: [], refused: [], duplicatesInFile: [] };
  for (const row of rows) {
    const first = survey.firstOf(row);
    if (!first) continue;
    const step = stepOf(first, asksTheList(first.status) && isOnList(first.reader.email));
    if (step.kind === "add") plan.add.push(step.reader);
    else if (step.kind === "suppress") plan.suppressAdd.push(step.reader);
    else if (step.kind === "known") plan.alreadyOnList.push({ line: step.line, email: step.email });
    else plan.refused.push(step.refusal);
  }
  plan.refused = [...survey.refusedAddresses, ...plan.refused].sort((a, b) => a.line - b.line);
  plan.duplicatesInFile = survey.duplicatesInFile;
  return plan;
}

/** The plan as the report counts it. */
export function counted(plan: ListedPlan): ImportPlan {
  const counts = emptyPlan();
  counts.added = plan.add.length;
  for (const { reason } of plan.suppressAdd) counts.suppressed[reason] += 1;
  counts.alreadyOnList = plan.alreadyOnList.length;
  return { ...counts, refused: plan.refused, duplicatesInFile: plan.duplicatesInFile };
}
