import type { MetaDescriptor } from "@remix-run/node";
import { documentMeta } from "~/content/site";
import { socialCardMeta } from "~/sharing/social-card.server";

/**
 * A page's social preview tags (Open Graph and the large card), with today's Day N card as its image: the same for
 * the home page and the updates pages, only the page's own words and address differ.
 */
export function socialPreviewMeta(
  now: Date,
  page: { title: string; description: string; url: string; type: "website" | "article" },
): MetaDescriptor[] {
  // Today's social card: its URL carries the Brussels date, so the cached home page (keyed by that date) stays right.
  const card = socialCardMeta(now);
  return [
    { property: "og:type", content: page.type },
    { property: "og:title", content: page.title },
    { property: "og:description", content: page.description },
    { property: "og:url", content: page.url },
    { property: "og:image", content: card.url },
    { property: "og:image:type", content: card.type },
    { property: "og:image:width", content: String(card.width) },
    { property: "og:image:height", content: String(card.height) },
    { property: "og:image:alt", content: card.alt },
    { name: "twitter:card", content: "summary_large_image" },
  ];
}

/**
 * The document's title and its description and social preview tags. Built here, on the server, and sent as loader
 * data: root's meta only places them, so the tag list costs the browser bundle nothing.
 */
export function documentMetaAt(now: Date): { title: string; tags: MetaDescriptor[] } {
  return {
    title: documentMeta.title,
    tags: [
      { name: "description", content: documentMeta.description },
      ...socialPreviewMeta(now, { ...documentMeta, type: "website" }),
    ],
  };
}
