/**
 * The rows of an export as the plan needs them: the line, the address as written, the original sign-up date and
 * what the file says about the reader. Nothing is judged here; the plan applies the address rule.
 */
import { cleanField } from "~/newsletter/admin/import/clean-text";
import type { CsvRecord } from "~/newsletter/admin/import/csv-reader.server";
import { detectFormat, type DetectedFormat } from "~/newsletter/admin/import/formats.server";
import { dateProblemOf, originalDateOf } from "~/newsletter/admin/import/original-date.server";
import {
  classifyInverted,
  classifyStatus,
  strongerStatus,
  type RowStatus,
} from "~/newsletter/admin/import/status.server";

export interface ImportRow {
  /** The file's line where the row starts. */
  line: number;
  /** The address cell, trimmed, as the file writes it. */
  address: string;
  /** The original sign-up time (ISO 8601), or null when the file has none that can be read. */
  originalDate: string | null;
  /** The status cell's own words, as the record keeps them (null when the file has no status column). */
  statusInFile: string | null;
  status: RowStatus;
}

export interface ReadExport {
  detected: DetectedFormat;
  rows: ImportRow[];
}

function rowStatus(fields: readonly string[], detected: DetectedFormat): { status: RowStatus; said: string | null } {
  let status: RowStatus = detected.fileStatus ?? { kind: "active" };
  const said: string[] = detected.fileStatus?.kind === "suppressed" ? [detected.fileStatus.said] : [];
  for (const column of detected.statusColumns) {
    const value = cleanField(fields[column.index] ?? "");
    if (value) said.push(`${column.header} ${JSON.stringify(value)}`);
    const classify = column.inverted ? classifyInverted : classifyStatus;
    status = strongerStatus(status, classify(column.header, value));
  }
  return { status, said: said.length > 0 ? said.join(", ") : null };
}

/** The export's format and rows, or a sentence saying why the file cannot be read as an export. */
export function readRows(records: readonly CsvRecord[]): ReadExport | { error: string } {
  const [first] = records;
  if (!first) return { error: "The file holds no rows." };
  const detected = detectFormat(first.fields);
  if ("error" in detected) return detected;
  const body = detected.hasHeader ? records.slice(1) : records;
  const rows = body.map((record): ImportRow => {
    const { fields, line } = record;
    // A plain list is one address a line; a line with separators in it is kept whole, so the report shows it.
    const address = (detected.format === "plain" ? fields.join(",") : (fields[detected.emailIndex] ?? "")).trim();
    const { status: statusInColumns, said } = rowStatus(fields, detected);
    // A date no sign-up can have says the row (or the column taken for its date) is not what it seems.
    const problem = dateProblemOf(fields, detected.dateIndexes);
    const status = problem ? strongerStatus(statusInColumns, { kind: "refused", reason: problem }) : statusInColumns;
    return { line, address, originalDate: originalDateOf(fields, detected.dateIndexes), statusInFile: said, status };
  });
  return { detected, rows };
}
