import { owner } from "~/content/site";
import type { SitemapEntry } from "~/sharing/sitemap.server";
import { updatePath } from "~/updates/update-view.server";
import { publishedUpdates } from "~/updates/updates.server";

/** The list and every published update (never a draft); each last changed on its date, the list on the newest. */
export function updatesSitemapEntries(): SitemapEntry[] {
  const updates = publishedUpdates();
  const url = (path: string) => new URL(path, owner.siteUrl).toString();
  return [
    { url: url("/updates"), ...(updates[0] ? { lastModified: updates[0].date } : {}) },
    ...updates.map((update) => ({ url: url(updatePath(update.name)), lastModified: update.date })),
  ];
}
