/**
 * The rows of an export as the plan needs them: the line, the address as written, the original sign-up date and
 * what the file says about the reader. Nothing is judged here; the plan applies the address rule.
 */
import { cleanField } from "~/newsletter/admin/import/clean-text";
import type { CsvRecord } from "~/newsletter/admin/import/csv-reader.server";
import { detectFormat, type DetectedFormat } from "~/newsletter/admin/import/formats.server";
import { datesOf } from "~/newsletter/admin/import/original-date.server";
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

/**
 * One row of the export as the plan needs it, and nothing more of the file: the cells are dropped once read. The few
 * distinct statuses and status words a file has are shared between its rows (`shared`), so a long export costs its
 * addresses and dates, not a copy of "email_disabled \"false\"" per row.
 */
export function rowOf(record: CsvRecord, detected: DetectedFormat, shared = new Map<string, unknown>()): ImportRow {
  const { fields, line } = record;
  // A plain list is one address a line; a line with separators in it is kept whole, so the report shows it.
  const address = (detected.format === "plain" ? fields.join(",") : (fields[detected.emailIndex] ?? "")).trim();
  const { status: statusInColumns, said } = rowStatus(fields, detected);
  // A date no sign-up can have says the row (or the column taken for its date) is not what it seems.
  const { date, problem } = datesOf(fields, detected.dateIndexes);
  const status = problem ? strongerStatus(statusInColumns, { kind: "refused", reason: problem }) : statusInColumns;
  const share = <T>(key: string, value: T): T => {
    if (!shared.has(key)) shared.set(key, value);
    return shared.get(key) as T;
  };
  const statusKey = `${status.kind}\n${"reason" in status ? status.reason : ""}\n${"said" in status ? status.said : ""}`;
  return {
    line,
    address,
    originalDate: date,
    statusInFile: said === null ? null : share(`said\n${said}`, said),
    status: share(statusKey, status),
  };
}

/** The export's format from its first record, or a sentence saying why the file cannot be read as an export. */
export function formatOf(first: CsvRecord | undefined): DetectedFormat | { error: string } {
  if (!first) return { error: "The file holds no rows." };
  return detectFormat(first.fields);
}

/** The export's format and rows, or a sentence saying why the file cannot be read as an export. */
export function readRows(records: readonly CsvRecord[]): ReadExport | { error: string } {
  const detected = formatOf(records[0]);
  if ("error" in detected) return detected;
  const shared = new Map<string, unknown>();
  const body = detected.hasHeader ? records.slice(1) : records;
  return { detected, rows: body.map((record) => rowOf(record, detected, shared)) };
}
