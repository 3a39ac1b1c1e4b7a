import { owner } from "~/content/site";
import { env } from "~/utils/env.server";

/**
 * The site's address for absolute links (in mails above all): SITE_URL when set, so that captured mails of a local
 * run link to the local server (docs/weekly.md), otherwise the owner's own address (app/content/site.ts).
 */
export function siteUrlOf(settings: { SITE_URL?: string }, ownerSiteUrl: string = owner.siteUrl): string {
  return settings.SITE_URL?.trim() || ownerSiteUrl;
}

export const siteUrl = (): string => siteUrlOf(env);
