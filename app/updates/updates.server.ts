// The owner's updates, as the site, the feed, the sitemap and the sending command see them. One Markdown file each in
// UPDATES_DIR (default app/content/updates), read at run time: docs/decisions/016-updates-as-markdown.md.
import path from "node:path";
import { owner } from "~/content/site";
import { env } from "~/utils/env.server";
import { challengeToday } from "~/utils/today.server";
import { isUpdateName, readUpdateFiles, type Update } from "~/updates/update-files.server";
import { isPublished } from "~/updates/publication.server";

export type { Update } from "~/updates/update-files.server";
export { UpdateFileError } from "~/updates/update-files.server";
export { renderUpdateHtml, renderUpdateText } from "~/updates/markdown.server";
export { isDue, isPublished, notBefore, publicationDay } from "~/updates/publication.server";

let cached: { folder: string; updates: Update[] } | null = null;

/** The folder the updates are read from, absolute (relative to the working directory, like DATA_DIR). */
export const updatesFolder = (): string => path.resolve(env.UPDATES_DIR);

/**
 * Every update, drafts included, newest first. Throws an UpdateFileError naming the file and the field for a bad
 * file. Read once per process in production (the files ship with the image and change only with a deploy); read
 * anew on each call elsewhere, so that `npm run dev` shows an edit at the next reload.
 */
export function allUpdates(): Update[] {
  const folder = updatesFolder();
  if (cached?.folder === folder && env.NODE_ENV === "production") return cached.updates;
  const updates = readUpdateFiles(folder);
  cached = { folder, updates };
  return updates;
}

/**
 * What the site, the feed and the sitemap show at `now`: every update but the drafts and those whose day has not
 * begun in Brussels, newest first. Asked on every request, so a future update appears at its midnight, no restart.
 */
export function publishedUpdates(now: Date = new Date()): Update[] {
  const { today } = challengeToday(now).days;
  return allUpdates().filter((update) => isPublished(update, today));
}

/** The update of that name, draft or not (the caller decides what a draft means to it). */
export function findUpdate(name: string): Update | undefined {
  // Only a well-formed name can be an update: anything else is answered without a look at the list.
  if (!isUpdateName(name)) return undefined;
  return allUpdates().find((update) => update.name === name);
}

/** The update of that name if the site shows it at `now` (see publishedUpdates). */
export function findPublishedUpdate(name: string, now: Date = new Date()): Update | undefined {
  const update = findUpdate(name);
  return update && isPublished(update, challengeToday(now).days.today) ? update : undefined;
}

/** The update's page, absolute on the owner's address (owner.siteUrl). */
export const updateUrl = (name: string): string =>
  new URL(`/updates/${encodeURIComponent(name)}`, owner.siteUrl).toString();
