import type { MetaDescriptor } from "@remix-run/node";
import { owner } from "~/content/site";
import { FEED_PATH, FEED_TYPE, feedTitle } from "~/updates/feed.server";
import { socialPreviewMeta } from "~/sharing/document-meta.server";

/**
 * An updates page's title, description, canonical address, social preview (today's Day N card) and the link to the
 * feed. Built on the server and sent as loader data, like the root's (app/sharing/document-meta.server.ts).
 */
export function updatesPageMeta(
  now: Date,
  page: { title: string; description: string; path: string; type: "website" | "article" },
): MetaDescriptor[] {
  const url = new URL(page.path, owner.siteUrl).toString();
  return [
    { title: page.title },
    { name: "description", content: page.description },
    { tagName: "link", rel: "canonical", href: url },
    { tagName: "link", rel: "alternate", type: FEED_TYPE, title: feedTitle, href: FEED_PATH },
    ...socialPreviewMeta(now, { title: page.title, description: page.description, url, type: page.type }),
  ];
}
