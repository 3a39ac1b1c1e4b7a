import type { MetaDescriptor } from "@remix-run/node";
import { owner } from "~/content/site";
import { FEED_PATH, FEED_TYPE, feedTitle } from "~/updates/feed.server";
import { socialCardMeta } from "~/sharing/social-card.server";

/**
 * An updates page's title, description, canonical address, social preview (today's Day N card) and the link to the
 * feed. Built on the server and sent as loader data, like the root's (app/sharing/document-meta.server.ts).
 */
export function updatesPageMeta(
  now: Date,
  page: { title: string; description: string; path: string; type: "website" | "article" },
): MetaDescriptor[] {
  const url = new URL(page.path, owner.siteUrl).toString();
  const card = socialCardMeta(now);
  return [
    { title: page.title },
    { name: "description", content: page.description },
    { tagName: "link", rel: "canonical", href: url },
    { tagName: "link", rel: "alternate", type: FEED_TYPE, title: feedTitle, href: FEED_PATH },
    { property: "og:type", content: page.type },
    { property: "og:title", content: page.title },
    { property: "og:description", content: page.description },
    { property: "og:url", content: url },
    { property: "og:image", content: card.url },
    { property: "og:image:type", content: card.type },
    { property: "og:image:width", content: String(card.width) },
    { property: "og:image:height", content: String(card.height) },
    { property: "og:image:alt", content: card.alt },
    { name: "twitter:card", content: "summary_large_image" },
  ];
}
