/**
 * The Nu Html Checker (the W3C's validator, npm `vnu-jar`) over a set of documents, in one Java process: its start
 * takes seconds, so every page of a test goes into one run. Java is the machine's (`.ci/run` installs Debian's
 * default-jre-headless when it is missing); without it the check fails, saying so, rather than passing unchecked.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

const VNU_JAR: string = String(createRequire(import.meta.url)("vnu-jar"));

export interface CheckerMessage {
  type: string;
  subType?: string;
  message: string;
  extract?: string;
  lastLine?: number;
}

/** Each document's errors, by name (an empty list for a valid one). */
export async function htmlErrors(documents: Record<string, string>): Promise<Record<string, CheckerMessage[]>> {
  const dir = mkdtempSync(path.join(tmpdir(), "html-checker-"));
  try {
    const files = Object.entries(documents).map(([name, html], index) => {
      const file = path.join(dir, `${index}.html`);
      writeFileSync(file, html);
      return { name, file };
    });
    const output = await runChecker(files.map(({ file }) => file));
    const parsed = JSON.parse(output) as { messages: (CheckerMessage & { url?: string })[] };
    const errors: Record<string, CheckerMessage[]> = Object.fromEntries(files.map(({ name }) => [name, []]));
    for (const { url, ...message } of parsed.messages) {
      const file = files.find((candidate) => url !== undefined && url.endsWith(`/${path.basename(candidate.file)}`));
      (errors[file?.name ?? "(the checker itself)"] ??= []).push(message);
    }
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChecker(files: string[]): Promise<string> {
  const args = ["-jar", VNU_JAR, "--errors-only", "--format", "json", ...files];
  return new Promise((resolve, reject) => {
    execFile("java", args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") {
        reject(
          new Error("no `java` on PATH: the HTML checker needs a Java runtime (apt-get install default-jre-headless)"),
        );
        return;
      }
      // The checker exits with 1 when it found errors; its report is on stderr in either case.
      const report = stderr.trim();
      if (report.startsWith("{")) resolve(report);
      else reject(new Error(`the HTML checker did not report: ${error?.message ?? ""}\n${stdout}\n${stderr}`));
    });
  });
}
