// Reading and checking the owner's update files. Imports only Node and `yaml`, and uses only TypeScript that Node can
// strip: `npm run build` runs this very file (scripts/check-updates.mjs) before any server starts, without the app's
// environment, so that a bad file stops the build with the same message the server would give.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

export type Update = {
  /** The file name without `.md`: `YYYY-MM-DD-<slug>`. */
  name: string;
  /** YYYY-MM-DD, from the file name: the day the update is dated (Europe/Brussels). */
  date: string;
  title: string;
  summary?: string;
  /** HH:MM (Europe/Brussels), optional: orders updates of the same day. */
  time?: string;
  draft: boolean;
  /** The body after the front matter. */
  markdown: string;
};

/** A bad update file: the message names the file and the field. */
export class UpdateFileError extends Error {
  override name = "UpdateFileError";
  constructor(file: string, field: string, problem: string) {
    super(`Update file ${file}: ${field} ${problem}`);
  }
}

const NAME = /^(\d{4})-(\d{2})-(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$/;
// Far beyond any real update; a larger file is a mistake (a pasted binary), not something to render on every request.
const MAX_FILE_BYTES = 256 * 1024;
const MAX_TITLE = 200;
const MAX_SUMMARY = 500;
const FIELDS = new Set(["title", "summary", "draft", "time"]);
// A title becomes a mail's Subject and a page's <title>: one line, no control characters.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// Characters that reorder or hide text: a title with U+202E reads backwards in a Subject line (a spoofed name or
// address), a zero-width one makes two titles that look equal differ. Bidi controls (embeddings, overrides, isolates,
// marks) and zero-width characters; no title or summary needs them.
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** Whether `name` looks like an update's name (the only names findUpdate ever looks up). */
export const isUpdateName = (name: string): boolean => name.length <= 120 && NAME.test(name);

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function nameAndDate(file: string): { name: string; date: string } {
  const name = file.slice(0, -".md".length);
  const match = NAME.exec(name);
  if (!match || name.length > 120) {
    throw new UpdateFileError(file, "file name", "must be YYYY-MM-DD-<slug>.md (slug: lower-case letters, digits, -)");
  }
  const [, year, month, day] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) {
    throw new UpdateFileError(file, "date", `${year}-${month}-${day} is not a calendar date`);
  }
  return { name, date: `${year}-${month}-${day}` };
}

function frontMatter(file: string, text: string): { fields: Record<string, unknown>; markdown: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/m.exec(text);
  if (!match || match.index !== 0) {
    throw new UpdateFileError(file, "front matter", "is missing: start the file with ---, then title: …, then ---");
  }
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? "", { schema: "core", maxAliasCount: 0, uniqueKeys: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new UpdateFileError(file, "front matter", `is not valid YAML (${reason})`);
  }
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
    throw new UpdateFileError(file, "front matter", "must be fields such as title: …");
  }
  return { fields: fields as Record<string, unknown>, markdown: text.slice(match[0].length) };
}

function oneLine(file: string, field: string, value: unknown, max: number): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new UpdateFileError(file, field, "must be a non-empty text");
  }
  if (CONTROL.test(value)) throw new UpdateFileError(file, field, "must be one line without control characters");
  const invisible = INVISIBLE.exec(value)?.[0];
  if (invisible !== undefined) {
    const code = `U+${invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    throw new UpdateFileError(file, field, `must not contain invisible or text-direction characters (${code} found)`);
  }
  if (value.length > max) throw new UpdateFileError(file, field, `must be at most ${max} characters`);
  return value.trim();
}

/** Parses one update file (`file` is its name, e.g. 2025-10-01-first-steps.md). Throws an UpdateFileError. */
export function parseUpdateFile(file: string, text: string): Update {
  const { name, date } = nameAndDate(file);
  const { fields, markdown } = frontMatter(file, text.replace(/^\uFEFF/, ""));
  for (const key of Object.keys(fields)) {
    if (!FIELDS.has(key)) {
      throw new UpdateFileError(file, key, "is not a field of an update (title, summary, draft, time)");
    }
  }
  if (!("title" in fields)) throw new UpdateFileError(file, "title", "is missing");
  const title = oneLine(file, "title", fields.title, MAX_TITLE);
  const summary = fields.summary == null ? undefined : oneLine(file, "summary", fields.summary, MAX_SUMMARY);
  if (fields.draft != null && typeof fields.draft !== "boolean") {
    throw new UpdateFileError(file, "draft", "must be true or false");
  }
  const draft = fields.draft === true;
  const time = fields.time == null ? undefined : timeOfDay(file, fields.time);
  return {
    name,
    date,
    title,
    ...(summary === undefined ? {} : { summary }),
    ...(time === undefined ? {} : { time }),
    draft,
    markdown,
  };
}

/** `time: 18:30` (YAML 1.2 reads it as text), as HH:MM. */
function timeOfDay(file: string, value: unknown): string {
  const match = typeof value === "string" ? TIME.exec(value.trim()) : null;
  if (!match) throw new UpdateFileError(file, "time", "must be HH:MM (24-hour clock, Europe/Brussels), e.g. 18:30");
  return `${match[1]!.padStart(2, "0")}:${match[2]}`;
}

/**
 * Newest first. On the same day the owner's order: the later `time:` first (an update without one counts as written
 * at 00:00), then the file name (descending: name same-day files so that they sort in writing order, e.g. -1-, -2-).
 * Never the disk's order.
 */
export function newestFirst(a: Update, b: Update): number {
  const [left, right] = [`${a.date} ${a.time ?? "00:00"} ${a.name}`, `${b.date} ${b.time ?? "00:00"} ${b.name}`];
  return left < right ? 1 : left > right ? -1 : 0;
}

/**
 * Every update in `folder` (drafts included), newest first. A missing folder has none. Files not ending in `.md`
 * (a .gitkeep, an editor's backup) are not updates; every `.md` file must be a good one.
 */
export function readUpdateFiles(folder: string): Update[] {
  let files: string[];
  try {
    files = readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const updates: Update[] = [];
  for (const file of files.filter((entry) => entry.endsWith(".md") && !entry.startsWith(".")).sort()) {
    const full = path.join(folder, file);
    const { size } = statSync(full);
    if (size > MAX_FILE_BYTES) throw new UpdateFileError(file, "file", `is over ${MAX_FILE_BYTES / 1024} KiB`);
    updates.push(parseUpdateFile(file, readFileSync(full, "utf8")));
  }
  return updates.sort(newestFirst);
}
