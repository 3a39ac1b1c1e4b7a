// Run by `npm run build`: reads every update file in app/content/updates with the very code the server uses, so that
// a bad file (no title, a bad date, broken front matter) stops the build with a line naming the file and the field.
// Node runs the TypeScript module directly (type stripping): no build, and no environment, is needed for it.
// `node scripts/check-updates.mjs <folder>` checks another folder (the tests do).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const folder = path.resolve(process.argv[2] ?? path.join(root, "app", "content", "updates"));
const appModule = (/** @type {string[]} */ ...parts) => pathToFileURL(path.join(root, "app", ...parts)).href;

/** @type {{ readUpdateFiles: (folder: string) => { name: string, date: string, draft: boolean }[] }} */
const { readUpdateFiles } = await import(appModule("updates", "update-files.server.ts"));
/** @type {{ isDue: (update: { date: string }, today: string) => boolean }} */
const { isDue } = await import(appModule("updates", "publication.server.ts"));
/** @type {{ challenge: { timeZone: string } }} */
const { challenge } = await import(appModule("content", "site.ts"));
// Today in the challenge's time zone, as the site counts it: a future-dated update is scheduled, not published.
const today = new Intl.DateTimeFormat("en-CA", { timeZone: challenge.timeZone }).format(new Date());
try {
  const updates = readUpdateFiles(folder);
  const drafts = updates.filter((update) => update.draft).length;
  const scheduled = updates.filter((update) => !update.draft && !isDue(update, today));
  const waiting = scheduled.length
    ? `, ${scheduled.length} scheduled (${scheduled.map((update) => `${update.name} on ${update.date}`).join(", ")})`
    : "";
  const published = updates.length - drafts - scheduled.length;
  console.log(`Updates: ${published} published${waiting}, ${drafts} draft(s) in ${path.relative(root, folder)}`);
} catch (error) {
  if (!(error instanceof Error) || error.name !== "UpdateFileError") throw error;
  console.error(error.message);
  process.exit(1);
}
