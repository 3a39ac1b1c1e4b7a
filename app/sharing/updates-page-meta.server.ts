import type { MetaDescriptor } from "@remix-run/node";
import { owner } from "~/content/site";
import { socialPreviewMeta } from "~/sharing/document-meta.server";

/**
 * An updates page's title, description and social preview (today's Day N card). Built on the server and sent as loader
 * data, like the root's (app/sharing/document-meta.server.ts); the root links every page's canonical address and the
 * feed (app/sharing/discovery-links.server.ts).
 */
export function updatesPageMeta(
  now: Date,
  page: { title: string; description: string; path: string; type: "website" | "article" },
): MetaDescriptor[] {
  const url = new URL(page.path, owner.siteUrl).toString();
  return [
    { title: page.title },
    { name: "description", content: page.description },
    ...socialPreviewMeta(now, { title: page.title, description: page.description, url, type: page.type }),
  ];
}
