// Which query strings only track where a visitor came from (docs/decisions/006-page-cache-and-csp.md). Links shared
// on social networks, in newsletters and in ads carry them; the page they ask for is the same as without them, so
// the page cache (server/page-cache.mjs) answers them with its copy of `/`. The list is here and only here.

/** Parameters added by analytics and ad platforms, compared without regard to case. */
export const TRACKING_PARAMETERS = Object.freeze([
  // Google: Ads click ids and Analytics' cross-domain linker
  "gclid",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "_ga",
  "_gl",
  // Meta (Facebook, Instagram)
  "fbclid",
  "igshid",
  // Microsoft (Bing Ads, LinkedIn)
  "msclkid",
  "li_fat_id",
  "trk",
  "trkcampaign",
  // X (Twitter), TikTok, Yandex
  "twclid",
  "ttclid",
  "yclid",
  // Mailchimp, HubSpot, Marketo (newsletters)
  "mc_cid",
  "mc_eid",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  // Referrer tags: Product Hunt, Hacker News and others
  "ref",
  "ref_src",
  "ref_url",
  "source",
]);

/** Whole families of parameters: utm_source, utm_medium, utm_campaign, utm_term, utm_content, utm_id… */
const TRACKING_PREFIXES = Object.freeze(["utm_"]);

const names = new Set(TRACKING_PARAMETERS);

/** @param {string} name */
export function isTrackingParameter(name) {
  const lower = name.toLowerCase();
  return (
    names.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix) && lower.length > prefix.length)
  );
}

/**
 * Whether a query string (without its `?`) only tracks: every parameter is in the list, whatever its value. An empty
 * query string tracks nothing and asks for nothing either. A parameter the app could read (`index`, `_data`, anything
 * else) makes it false.
 * @param {string} query
 */
export function isTrackingOnly(query) {
  for (const name of new URLSearchParams(query).keys()) if (!isTrackingParameter(name)) return false;
  return true;
}

/**
 * Whether a request target (`req.url`: path and query) asks for exactly the home page: `/`, with no query string or
 * one that only tracks.
 * @param {string | undefined} target
 */
export function isHomePageTarget(target) {
  if (target === "/") return true;
  if (!target?.startsWith("/?")) return false;
  // A fragment never reaches the server; a `#` here is a malformed target: not ours to interpret.
  return !target.includes("#") && isTrackingOnly(target.slice(2));
}
