// Run by `npm run build`: reads every update file in app/content/updates with the very code the server uses, so that
// a bad file (no title, a bad date, broken front matter) stops the build with a line naming the file and the field.
// Node runs the TypeScript module directly (type stripping): no build, and no environment, is needed for it.
// `node scripts/check-updates.mjs <folder>` checks another folder (the tests do).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const folder = path.resolve(process.argv[2] ?? path.join(root, "app", "content", "updates"));
const module = pathToFileURL(path.join(root, "app", "updates", "update-files.server.ts")).href;

/** @type {{ readUpdateFiles: (folder: string) => { draft: boolean }[] }} */
const { readUpdateFiles } = await import(module);
try {
  const updates = readUpdateFiles(folder);
  const drafts = updates.filter((update) => update.draft).length;
  console.log(`Updates: ${updates.length - drafts} published, ${drafts} draft(s) in ${path.relative(root, folder)}`);
} catch (error) {
  if (!(error instanceof Error) || error.name !== "UpdateFileError") throw error;
  console.error(error.message);
  process.exit(1);
}
