// The feed, built once for what is visible and kept: rendering every update's HTML on each request cost 70–160 ms
// of CPU for a year of updates, and feed readers poll. A production server reads the files once, so the
// feed changes only when an update's day begins in Brussels; the key is what the feed shows, not the clock.
import { createHash } from "node:crypto";
import { challenge } from "~/content/site";
import { FEED_ENTRIES, updatesFeedXml } from "~/updates/feed/atom.server";
import { startOfDay } from "~/updates/update-view.server";
import { isPublished } from "~/updates/publication.server";
import { allUpdates, type Update } from "~/updates/updates.server";
import { matchesEtag } from "~/utils/http-fields.server";
import { challengeToday } from "~/utils/today.server";

export type FeedAnswer = {
  body: string;
  /** Strong: a hash of the body. */
  etag: string;
  /** An HTTP date: when this process first built this body (whole seconds, as the header carries them). */
  lastModified: string;
};

let cached: { source: Update[]; key: string; answer: FeedAnswer } | null = null;

/** The feed at `now` of the updates read from disk (once per process in production, on every call elsewhere). */
export const currentFeed = (now: Date = new Date()): FeedAnswer => feedOf(allUpdates(), now);

/**
 * The feed of `source` (every update, newest first, as allUpdates gives it) at `now`. Built again only for another
 * source (under `npm run dev`, each call; in production, never) or when what the feed shows changes (an update's day
 * began); an identical body keeps its validators, so a client's copy stays valid across midnight.
 */
export function feedOf(source: Update[], now: Date): FeedAnswer {
  const { today } = challengeToday(now).days;
  const shown = source.filter((update) => isPublished(update, today)).slice(0, FEED_ENTRIES);
  const key = shown.map((update) => update.name).join("\n");
  if (cached && cached.source === source && cached.key === key) return cached.answer;
  // With no update yet, the feed is as old as the challenge.
  const body = updatesFeedXml(shown, startOfDay(challenge.startDate));
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  const lastModified =
    cached?.answer.etag === etag
      ? cached.answer.lastModified
      : new Date(Math.floor(now.getTime() / 1000) * 1000).toUTCString();
  cached = { source, key, answer: { body, etag, lastModified } };
  return cached.answer;
}

/**
 * Whether the client's copy is current (RFC 9110 §13.2.2): `If-None-Match` decides when present (weak comparison,
 * `*` matches); otherwise `If-Modified-Since`, if it is a date, at or after Last-Modified.
 */
export function notModified(headers: Headers, answer: Pick<FeedAnswer, "etag" | "lastModified">): boolean {
  const noneMatch = headers.get("If-None-Match");
  if (noneMatch !== null) return matchesEtag(noneMatch, answer.etag);
  const since = Date.parse(headers.get("If-Modified-Since") ?? "");
  return Number.isFinite(since) && Date.parse(answer.lastModified) <= since;
}
