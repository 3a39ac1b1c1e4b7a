// docs/weekly.md as the tests read it: the owner's week, whose commands the image must run as written.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./production-server";

const doc = readFileSync(path.join(ROOT, "docs/weekly.md"), "utf8");

/** The fenced `sh` blocks under the heading that starts with `heading`, as lines. */
export function blocksUnder(heading: string): string[][] {
  const section = doc.split(/^## /m).find((part) => part.startsWith(heading));
  if (!section) throw new Error(`docs/weekly.md has no section "## ${heading}…"`);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!.trim().split("\n"));
}

/** The update step 1 writes (its file name without `.md`), if the step names one. */
export const WEEKLY_UPDATE = /app\/content\/updates\/(\d{4}-\d\d-\d\d-[a-z0-9-]+)\.md/.exec(
  blocksUnder("1.")[0]!.join("\n"),
)?.[1];
