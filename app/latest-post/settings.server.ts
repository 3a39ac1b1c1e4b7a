// The latest post without Supabase (docs/latest-post.md): its variables are read by the same code the edge function
// runs, so a value the edge function would refuse stops the server at start instead of failing each request.
import { parseBlueskyActor } from "../../supabase/functions/_shared/latest-post/bluesky.ts";
import { parseMastodonProfile } from "../../supabase/functions/_shared/latest-post/mastodon.ts";
import { webUrl } from "../../supabase/functions/_shared/latest-post/post.ts";
import type { Env, SettingProblem } from "~/utils/env.server";

type LatestPostSettings = Pick<Env, "LATEST_POST_BLUESKY" | "LATEST_POST_MASTODON" | "BLUESKY_API_URL">;

/** What is wrong with the latest post's variables that are set: one problem per unreadable one. */
export function latestPostSettingProblems(settings: LatestPostSettings): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const { LATEST_POST_BLUESKY: bluesky, LATEST_POST_MASTODON: mastodon, BLUESKY_API_URL: appView } = settings;
  if (bluesky !== undefined && parseBlueskyActor(bluesky) === null) {
    problems.push({
      variable: "LATEST_POST_BLUESKY",
      message: "must be a Bluesky handle such as alex.bsky.social, or a DID",
    });
  }
  if (mastodon !== undefined && parseMastodonProfile(mastodon) === null) {
    problems.push({
      variable: "LATEST_POST_MASTODON",
      message: "must be a Mastodon profile URL such as https://mastodon.social/@alex (plain http only on loopback)",
    });
  }
  if (appView !== undefined && webUrl(appView.trim()) === null) {
    problems.push({
      variable: "BLUESKY_API_URL",
      message: "must be an http(s) URL such as https://public.api.bsky.app",
    });
  }
  return problems;
}
