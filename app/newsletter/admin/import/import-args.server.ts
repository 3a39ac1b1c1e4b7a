/**
 * The `import` verb's usage line and arguments, for scripts/subscribers.mjs to show and hand to `runImport`.
 */

/** The verb's lines in the tool's usage text (the same two-column layout as the other verbs). */
export const IMPORT_USAGE = [
  "  import <file> [--dry-run] [--yes]",
  "                      brings in the readers of a Substack, Buttondown, Mailchimp, Kit or Ghost export, or of a",
  "                      file with one address a line, as confirmed; those the file says left, bounced or",
  "                      complained come in suppressed; --dry-run prints what would happen and writes nothing; a",
  "                      file that would suppress more than half its rows is written only with --yes",
].join("\n");

export type ImportArgs = { file: string; dryRun: boolean; yes: boolean } | { error: string };

/** The file and the flags, in any order; anything else is an error the tool prints with its usage. */
export function parseImportArgs(args: readonly string[]): ImportArgs {
  const files: string[] = [];
  let dryRun = false;
  let yes = false;
  for (const arg of args) {
    if (arg === "--dry-run") dryRun = true;
    else if (arg === "--yes") yes = true;
    else if (arg.startsWith("--")) return { error: `Unknown option ${arg}.` };
    else files.push(arg);
  }
  if (files.length !== 1) {
    return { error: files.length === 0 ? "Name the file to import." : "Import one file at a time." };
  }
  return { file: files[0] ?? "", dryRun, yes };
}
