// The Atom feed of the published updates (RFC 4287): for readers who prefer a feed reader to mail.
import { owner } from "~/content/site";
import { renderUpdateHtml } from "~/updates/markdown.server";
import { FEED_PATH, FEED_TYPE } from "~/updates/feed-path";
import type { Update } from "~/updates/update-files.server";
import { startOfDay, updatePath } from "~/updates/update-view.server";

export { FEED_PATH, FEED_TYPE } from "~/updates/feed-path";

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
// Characters XML 1.0 does not allow at all, even escaped: a stray one would make the whole feed unreadable.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xml = (text: string) => text.replace(NOT_XML, "").replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);

const absolute = (path: string) => new URL(path, owner.siteUrl).toString();

/** The feed's title, also the `<link rel="alternate">`'s. */
export const feedTitle = `${owner.name} · Updates`;

function entry(update: Update): string {
  const url = absolute(updatePath(update.name));
  const updated = startOfDay(update.date);
  return [
    "  <entry>",
    `    <id>${xml(url)}</id>`,
    `    <title>${xml(update.title)}</title>`,
    `    <link rel="alternate" type="text/html" href="${xml(url)}"/>`,
    `    <published>${updated}</published>`,
    `    <updated>${updated}</updated>`,
    ...(update.summary ? [`    <summary>${xml(update.summary)}</summary>`] : []),
    `    <content type="html">${xml(renderUpdateHtml(update.markdown))}</content>`,
    "  </entry>",
  ].join("\n");
}

/** The feed of `updates` (published ones, newest first). With none, a valid feed without entries. */
export function updatesFeedXml(updates: Update[], fallbackUpdated: string): string {
  const updated = updates[0] ? startOfDay(updates[0].date) : fallbackUpdated;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(absolute("/updates"))}</id>`,
    `  <title>${xml(feedTitle)}</title>`,
    `  <updated>${updated}</updated>`,
    `  <author><name>${xml(owner.name)}</name></author>`,
    `  <link rel="self" type="${FEED_TYPE}" href="${xml(absolute(FEED_PATH))}"/>`,
    `  <link rel="alternate" type="text/html" href="${xml(absolute("/updates"))}"/>`,
    ...updates.map(entry),
    "</feed>",
    "",
  ].join("\n");
}
