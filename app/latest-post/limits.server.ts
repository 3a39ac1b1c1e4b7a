/** What both ways of getting the latest post (the edge function, or Bluesky / Mastodon directly) share. */

export type Log = (line: string) => void;

/** Every failure is one server log line starting so, whichever the source (docs/latest-post.md). */
export const LOG_PREFIX = "Failed to fetch tweet";
// A misbehaving source must not be able to put a novel into every page. Room for a whole post: Bluesky allows 300
// graphemes, Mastodon usually 500, plus the full addresses restored in place of shortened links.
export const MAX_TEXT_CHARS = 3_000;
export const MAX_CAUSE_CHARS = 300;
