import type { MetaDescriptor } from "@remix-run/node";
import { documentMeta } from "~/content/site";
import { socialCardMeta } from "~/sharing/social-card.server";

/**
 * The document's title and its description and social preview tags. Built here, on the server, and sent as loader
 * data: root's meta only places them, so the tag list costs the browser bundle nothing.
 */
export function documentMetaAt(now: Date): { title: string; tags: MetaDescriptor[] } {
  // Today's social card: its URL carries the Brussels date, so the cached home page (keyed by that date) stays right.
  const card = socialCardMeta(now);
  return {
    title: documentMeta.title,
    tags: [
      { name: "description", content: documentMeta.description },
      { property: "og:type", content: "website" },
      { property: "og:title", content: documentMeta.title },
      { property: "og:description", content: documentMeta.description },
      { property: "og:url", content: documentMeta.url },
      { property: "og:image", content: card.url },
      { property: "og:image:type", content: card.type },
      { property: "og:image:width", content: String(card.width) },
      { property: "og:image:height", content: String(card.height) },
      { property: "og:image:alt", content: card.alt },
      { name: "twitter:card", content: "summary_large_image" },
    ],
  };
}
