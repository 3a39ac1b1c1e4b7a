/**
 * Mastodon: the owner's newest own public post, read without a token from the owner's server
 * (https://docs.joinmastodon.org/methods/accounts/#lookup, https://docs.joinmastodon.org/methods/accounts/#statuses,
 * https://docs.joinmastodon.org/entities/Status/), shaped for the card.
 */
import { htmlToText } from "./html-text.ts";
import { type LatestPostBody, isRecord, isoDate, newest, webUrl } from "./post.ts";

export interface MastodonProfile {
  /** The owner's server, like https://mastodon.social. */
  origin: string;
  /** The username on that server, without "@". */
  username: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** The API's own maximum per page; enough to get past replies, boosts and hidden posts. */
const STATUS_LIMIT = 40;

/**
 * A profile URL such as https://mastodon.social/@alex. Plain http only on loopback (the tests' fake server): the
 * owner's real server is always https.
 */
export function parseMastodonProfile(raw: string | undefined): MastodonProfile | null {
  const value = raw?.trim() ?? "";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
  if (!secure || url.username || url.password || url.search || url.hash) return null;
  const match = /^\/@([A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9_])?)\/?$/.exec(url.pathname);
  if (!match) return null;
  return { origin: url.origin, username: match[1]! };
}

export function accountLookupUrl(profile: MastodonProfile): string {
  return `${profile.origin}/api/v1/accounts/lookup?${new URLSearchParams({ acct: profile.username }).toString()}`;
}

export function accountStatusesUrl(profile: MastodonProfile, accountId: string): string {
  const query = new URLSearchParams({
    exclude_replies: "true",
    exclude_reblogs: "true",
    limit: String(STATUS_LIMIT),
  });
  return `${profile.origin}/api/v1/accounts/${encodeURIComponent(accountId)}/statuses?${query.toString()}`;
}

/** The account's id from an accounts/lookup answer, or null. */
export function accountIdFrom(payload: unknown): string | null {
  const id = isRecord(payload) ? payload.id : undefined;
  return typeof id === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
}

function shapeStatus(status: unknown, accountId: string): LatestPostBody | null {
  if (!isRecord(status)) return null;
  // A boost, a reply, someone else's post, or one that is not public (unlisted, followers-only, direct): not shown.
  if (status.reblog != null || status.in_reply_to_id != null) return null;
  if (!isRecord(status.account) || status.account.id !== accountId) return null;
  if (status.visibility !== "public") return null;
  // Behind a content warning, or marked sensitive: the visitor did not choose to open it.
  if ((typeof status.spoiler_text === "string" && status.spoiler_text.trim() !== "") || status.sensitive === true) {
    return null;
  }
  if (typeof status.content !== "string") return null;
  const text = htmlToText(status.content);
  const url = webUrl(status.url) ?? webUrl(status.uri);
  if (!text || !url) return null;
  const createdAt = isoDate(status.created_at);
  return { text, url, source: "Mastodon", ...(createdAt ? { createdAt } : {}) };
}

/**
 * The owner's newest own post in an accounts/:id/statuses answer, or null. Newest by `created_at`, so a pinned
 * older post never wins.
 */
export function pickMastodonStatus(payload: unknown, accountId: string): LatestPostBody | null {
  if (!Array.isArray(payload)) return null;
  const posts = payload.slice(0, 100).map((status) => shapeStatus(status, accountId));
  return newest(posts.filter((post): post is LatestPostBody => post !== null));
}
