import { owner } from "~/content/site";
import { FEED_PATH, FEED_TYPE, feedTitle } from "~/updates/feed/atom.server";

/**
 * What every page's head links to (root.tsx), as loader data so the browser bundle carries none of it: the origin its
 * canonical address starts with (the page's own path follows: one address however it was reached, never a query),
 * and the Atom feed, so feed readers and browsers find it from any page.
 */
export interface DiscoveryLinks {
  origin: string;
  feed: { href: string; type: string; title: string };
}

export const discoveryLinks = (): DiscoveryLinks => ({
  origin: new URL(owner.siteUrl).origin,
  feed: { href: FEED_PATH, type: FEED_TYPE, title: feedTitle },
});
