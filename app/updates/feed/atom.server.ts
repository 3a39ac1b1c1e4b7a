// The Atom feed of the published updates (RFC 4287): for readers who prefer a feed reader to mail.
import { owner } from "~/content/site";
import { renderUpdateHtml } from "~/updates/markdown.server";
import { FEED_PATH, FEED_TYPE } from "~/updates/feed/path";
import type { Update } from "~/updates/update-files.server";
import { updatePath, writtenAt } from "~/updates/update-view.server";

export { FEED_PATH, FEED_TYPE } from "~/updates/feed/path";

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
// Characters XML 1.0 does not allow at all, even escaped: a stray one would make the whole feed unreadable.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xml = (text: string) => text.replace(NOT_XML, "").replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);

const absolute = (path: string) => new URL(path, owner.siteUrl).toString();

/**
 * The newest updates a feed holds: what readers poll for is what is new; older ones stay on /updates. Twenty is what
 * common feeds keep, and bounds the feed's size (at most 20 × 256 KiB of Markdown) however long the challenge runs.
 */
export const FEED_ENTRIES = 20;

/** The feed's title, also the `<link rel="alternate">`'s. */
export const feedTitle = `${owner.name} · Updates`;

function entry(update: Update): string {
  const url = absolute(updatePath(update.name));
  const updated = writtenAt(update);
  return [
    "  <entry>",
    `    <id>${xml(url)}</id>`,
    `    <title>${xml(update.title)}</title>`,
    `    <link rel="alternate" type="text/html" href="${xml(url)}"/>`,
    `    <published>${updated}</published>`,
    `    <updated>${updated}</updated>`,
    // Each entry names its author, so that readers that show entries alone (newsboat) do not show it blank.
    `    <author><name>${xml(owner.name)}</name></author>`,
    ...(update.summary ? [`    <summary>${xml(update.summary)}</summary>`] : []),
    `    <content type="html">${xml(renderUpdateHtml(update.markdown))}</content>`,
    "  </entry>",
  ].join("\n");
}

/** The feed of `updates` (published ones, newest first): the newest FEED_ENTRIES. With none, a valid empty feed. */
export function updatesFeedXml(all: Update[], fallbackUpdated: string): string {
  const updates = all.slice(0, FEED_ENTRIES);
  const updated = updates[0] ? writtenAt(updates[0]) : fallbackUpdated;
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
