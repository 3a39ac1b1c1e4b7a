// The owner's optional welcome mail: `app/content/welcome.md` (WELCOME_FILE), front matter with a `subject`, then the
// Markdown body, rendered by the site's one Markdown renderer. Read at run time, as the updates are: absent, no
// reader gets a welcome; present, each newly confirmed reader gets it once (welcome-composer.server.ts).
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { OwnerFileError, readOwnerFile } from "~/utils/owner-file.server";

export interface Welcome {
  /** The mail's subject and its heading. */
  subject: string;
  /** The body after the front matter. */
  markdown: string;
}

/** A welcome file that cannot be sent: the message names the file and the field, as an update file's does. */
export class WelcomeFileError extends Error {
  override name = "WelcomeFileError";
  constructor(file: string, field: string, problem: string) {
    super(`Welcome file ${file}: ${field} ${problem}`);
  }
}

const MAX_FILE_BYTES = 256 * 1024;
const MAX_SUBJECT = 200;
// A subject is a header: one line, no control characters, nothing that reorders or hides text.
// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

/** The welcome in `text` (the file's content); throws a WelcomeFileError naming what to fix. */
export function parseWelcome(file: string, text: string): Welcome {
  const match = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/m.exec(text);
  if (!match || match.index !== 0) {
    throw new WelcomeFileError(file, "front matter", "is missing: start the file with ---, then subject: …, then ---");
  }
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? "", { schema: "core", maxAliasCount: 0, uniqueKeys: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new WelcomeFileError(file, "front matter", `is not valid YAML (${reason})`);
  }
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
    throw new WelcomeFileError(file, "front matter", "must be fields such as subject: …");
  }
  const record = fields as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => key !== "subject");
  if (unknown !== undefined) throw new WelcomeFileError(file, unknown, "is not a field a welcome has (only subject)");
  const subject = typeof record.subject === "string" ? record.subject.trim() : "";
  if (!subject) throw new WelcomeFileError(file, "subject", "is missing: add subject: … to the front matter");
  if (subject.length > MAX_SUBJECT) throw new WelcomeFileError(file, "subject", `is over ${MAX_SUBJECT} characters`);
  if (NOT_PLAIN.test(subject)) throw new WelcomeFileError(file, "subject", "holds a control or invisible character");
  const markdown = text.slice(match[0].length).trim();
  if (!markdown) throw new WelcomeFileError(file, "body", "is empty: write the mail under the front matter");
  return { subject, markdown };
}

/** The welcome at `file`, or null when there is no such file (the owner wants no welcome mail). */
export function readWelcomeFile(file: string): Welcome | null {
  const name = path.basename(file);
  let read: ReturnType<typeof readOwnerFile>;
  try {
    // Only a regular file, bounded before it is read: a FIFO or a link to /dev/zero there never holds a reader.
    read = readOwnerFile(file, MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof OwnerFileError) throw new WelcomeFileError(name, "file", error.problem);
    throw error;
  }
  return read ? parseWelcome(name, read.bytes.toString("utf8")) : null;
}
