/**
 * Bluesky: the owner's newest own post from `app.bsky.feed.getAuthorFeed` on the public AppView (no account, no
 * key), shaped for the card. Lexicons: app.bsky.feed.getAuthorFeed, app.bsky.feed.defs#feedViewPost,
 * app.bsky.feed.post, app.bsky.richtext.facet (https://docs.bsky.app/docs/api/app-bsky-feed-get-author-feed,
 * https://docs.bsky.app/docs/advanced-guides/post-richtext).
 */
import { type LatestPostBody, isRecord, isoDate, newest, webUrl } from "./post.ts";

export const BLUESKY_PUBLIC_API = "https://public.api.bsky.app";
/** Enough to get past a run of replies, reposts and labelled posts; the endpoint allows 100. */
const FEED_LIMIT = 30;

/** A handle (alex.bsky.social, with or without "@") or a DID (did:plc:…, did:web:…), as the `actor` parameter. */
export function parseBlueskyActor(raw: string | undefined): string | null {
  const value = raw?.trim().replace(/^@/, "") ?? "";
  if (/^did:(plc:[a-z2-7]{24}|web:[a-zA-Z0-9.-]{1,253}(%3[aA]\d{1,5})?)$/.test(value)) return value;
  const handle = value.toLowerCase();
  const label = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
  if (handle.length <= 253 && new RegExp(`^(${label}\\.)+[a-z]${"[a-z0-9-]{0,61}"}$`).test(handle)) return handle;
  return null;
}

/** The public AppView, or another (the tests' loopback fake) when BLUESKY_API_URL names an http(s) URL. */
export function blueskyApiBase(raw: string | undefined): string {
  const value = raw?.trim().replace(/\/+$/, "");
  return value && webUrl(value) ? value : BLUESKY_PUBLIC_API;
}

export function authorFeedUrl(actor: string, base: string = BLUESKY_PUBLIC_API): string {
  const query = new URLSearchParams({
    actor,
    filter: "posts_no_replies",
    includePins: "false",
    limit: String(FEED_LIMIT),
  });
  return `${base}/xrpc/app.bsky.feed.getAuthorFeed?${query.toString()}`;
}

/** https://bsky.app/profile/<did>/post/<rkey> from the post's at:// URI. */
export function blueskyPostUrl(uri: unknown): string | null {
  if (typeof uri !== "string") return null;
  const match = /^at:\/\/(did:[a-z]+:[a-zA-Z0-9._:%-]{1,256})\/app\.bsky\.feed\.post\/([a-zA-Z0-9._:~-]{1,512})$/.exec(
    uri,
  );
  if (!match) return null;
  return `https://bsky.app/profile/${match[1]}/post/${match[2]}`;
}

interface LinkFacet {
  start: number;
  end: number;
  uri: string;
}

function linkFacets(facets: unknown, byteLength: number): LinkFacet[] {
  if (!Array.isArray(facets)) return [];
  const links: LinkFacet[] = [];
  for (const facet of facets) {
    if (!isRecord(facet) || !isRecord(facet.index) || !Array.isArray(facet.features)) continue;
    const { byteStart: start, byteEnd: end } = facet.index;
    if (!Number.isInteger(start) || !Number.isInteger(end)) continue;
    if ((start as number) < 0 || (end as number) <= (start as number) || (end as number) > byteLength) continue;
    const link = facet.features.find(
      (feature) => isRecord(feature) && feature.$type === "app.bsky.richtext.facet#link",
    );
    const uri = isRecord(link) ? webUrl(link.uri) : null;
    if (uri) links.push({ start: start as number, end: end as number, uri });
  }
  // In text order; a facet overlapping the one before it is ignored.
  links.sort((a, b) => a.start - b.start);
  return links.filter((link, index) => index === 0 || link.start >= links[index - 1]!.end);
}

const withoutScheme = (url: string) => url.replace(/^https?:\/\//i, "").replace(/^www\./i, "");

/** Whether the text shown is the app's shortened form of the URI (scheme dropped, cut and ended with "..."). */
function isShortened(shown: string, uri: string): boolean {
  const stem = withoutScheme(shown.trim().replace(/(\.\.\.|…)$/, ""));
  return stem.length > 0 && withoutScheme(uri).toLowerCase().startsWith(stem.toLowerCase());
}

/**
 * The text with each link facet's full URI in place of the shortened one Bluesky shows. Facets count UTF-8 bytes,
 * not JavaScript's UTF-16 units, so the text is cut as bytes. A link whose text is not a shortened URL keeps its
 * words, followed by the address.
 */
export function restoreLinks(text: string, facets: unknown): string {
  const bytes = new TextEncoder().encode(text);
  const links = linkFacets(facets, bytes.length);
  if (links.length === 0) return text;
  const decoder = new TextDecoder();
  let out = "";
  let at = 0;
  for (const link of links) {
    out += decoder.decode(bytes.subarray(at, link.start));
    const shown = decoder.decode(bytes.subarray(link.start, link.end));
    out += isShortened(shown, link.uri) ? link.uri : `${shown} (${link.uri})`;
    at = link.end;
  }
  return out + decoder.decode(bytes.subarray(at));
}

function hasLabels(labels: unknown): boolean {
  if (Array.isArray(labels)) return labels.length > 0;
  // A record's self-labels: { $type: "com.atproto.label.defs#selfLabels", values: [{ val }] }.
  return isRecord(labels) && Array.isArray(labels.values) && labels.values.length > 0;
}

function isOwner(author: unknown, actor: string): author is Record<string, unknown> {
  if (!isRecord(author)) return false;
  return author.did === actor || (typeof author.handle === "string" && author.handle.toLowerCase() === actor);
}

/** The author asked not to be shown to logged-out viewers; a public page respects that. */
function optedOut(author: Record<string, unknown>): boolean {
  return (
    Array.isArray(author.labels) &&
    author.labels.some((label) => isRecord(label) && label.val === "!no-unauthenticated")
  );
}

/** One feed item as the card's post, or null when it is not the owner's own, plain, non-empty post. */
function shapeItem(item: unknown, actor: string): LatestPostBody | null {
  // A repost or a pinned post carries a `reason`; a reply carries `reply` (in the item and in its record).
  if (!isRecord(item) || item.reason != null || item.reply != null) return null;
  const post = item.post;
  if (!isRecord(post) || !isOwner(post.author, actor) || optedOut(post.author)) return null;
  const record = post.record;
  if (!isRecord(record) || record.$type !== "app.bsky.feed.post" || record.reply != null) return null;
  if (hasLabels(post.labels) || hasLabels(record.labels) || typeof record.text !== "string") return null;
  const text = restoreLinks(record.text, record.facets).trim();
  const url = blueskyPostUrl(post.uri);
  if (!text || !url) return null;
  const createdAt = isoDate(record.createdAt) ?? isoDate(post.indexedAt);
  return { text, url, source: "Bluesky", ...(createdAt ? { createdAt } : {}) };
}

/** The owner's newest own post in a getAuthorFeed answer, or null when there is none to show. */
export function pickBlueskyPost(payload: unknown, actor: string): LatestPostBody | null {
  if (!isRecord(payload) || !Array.isArray(payload.feed)) return null;
  const owner = actor.toLowerCase().startsWith("did:") ? actor : actor.toLowerCase();
  const posts = payload.feed.slice(0, 100).map((item) => shapeItem(item, owner));
  return newest(posts.filter((post): post is LatestPostBody => post !== null));
}
