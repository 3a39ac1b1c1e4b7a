/**
 * The words a reader agrees to when they sign up: the dialog's text as it is shown, read from the one place the dialog
 * takes it (newsletterCopy in app/content/site.ts). Its version is a digest of the text, so a
 * later edit gives a new version and the readers who agreed to the old one keep it.
 */
import { createHash } from "node:crypto";
import { newsletterCopy } from "~/content/site";
import type { Consent } from "~/newsletter/list/subscriber-list.server";

export type { Consent } from "~/newsletter/list/subscriber-list.server";

export const CONSENT_WORDING = [
  newsletterCopy.title,
  newsletterCopy.text,
  newsletterCopy.emailLabel,
  newsletterCopy.submit,
  newsletterCopy.footnote,
].join("\n");

export const consentVersion = (wording: string): string =>
  createHash("sha256").update(wording).digest("hex").slice(0, 16);

/** The consent of a sign-up through the dialog on `page`. */
export const dialogConsent = (page: string): Consent => ({
  page,
  wording: CONSENT_WORDING,
  version: consentVersion(CONSENT_WORDING),
});

/** Longer than any page of the site; Supabase keeps 200 characters of it. */
const MAX_PAGE_LENGTH = 200;

/**
 * The page a sign-up was posted from: the path of the Referer when it is one of this site's pages (every page's form
 * posts to the home route's action; the site's Referrer-Policy sends the whole URL to its own origin), otherwise "/".
 * Only the path: a query may hold someone's tracking tags, which are no part of what the reader agreed to.
 */
export function consentPageOf(referer: string | null, requestUrl: string): string {
  if (!referer) return "/";
  try {
    const from = new URL(referer);
    if (from.host !== new URL(requestUrl).host) return "/";
    const page = from.pathname;
    return page.length <= MAX_PAGE_LENGTH && !/[\s\p{Cc}]/u.test(page) ? page : "/";
  } catch {
    return "/";
  }
}
