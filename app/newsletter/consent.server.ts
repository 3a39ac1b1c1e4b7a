/**
 * The words a reader agrees to when they sign up: the dialog's text, as it is shown (app/components/
 * newsletter-dialog.tsx; tests/unit/confirm.test.ts checks the two agree). Its version is a digest of the text, so a
 * later edit gives a new version and the readers who agreed to the old one keep it.
 */
import { createHash } from "node:crypto";

export const CONSENT_WORDING = [
  "Get Updates on My Journey",
  "Be the first to hear when a new project launches, what I learned building it, and how the challenge is going.",
  "Email address",
  "Get Early Access",
  "Join the journey • No spam • Unsubscribe anytime",
].join("\n");

export const consentVersion = (wording: string): string =>
  createHash("sha256").update(wording).digest("hex").slice(0, 16);

export interface Consent {
  /** The page whose form was used (a path on the site). */
  page: string;
  wording: string;
  version: string;
}

/** The consent of a sign-up through the dialog on `page`. */
export const dialogConsent = (page: string): Consent => ({
  page,
  wording: CONSENT_WORDING,
  version: consentVersion(CONSENT_WORDING),
});
