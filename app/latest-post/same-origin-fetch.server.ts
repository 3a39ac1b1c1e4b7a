/**
 * The fetch the latest-post reads go through: redirects are followed by hand, and only within the origin that was
 * asked. A redirect to another origin (another host's post shown as the owner's, or an address inside the network
 * such as 169.254.169.254) is never requested: the read fails with a line naming where it was sent.
 */

/** A few hops: the services answer directly; one or two cover a moved path on the same host. */
export const MAX_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class RedirectRefused extends Error {
  override name = "RedirectRefused";
}

/** `fetchImpl` with `redirect: "manual"`, following same-origin redirects itself, up to MAX_REDIRECTS. */
export function sameOriginFetch(fetchImpl: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : input.toString());
    const origin = url.origin;
    for (let hop = 0; ; hop += 1) {
      // The reads are GETs: a later hop asks the new URL with the same options.
      const response = await fetchImpl(hop === 0 ? input : url, { ...init, redirect: "manual" });
      if (!REDIRECT_STATUSES.has(response.status)) return response;
      // Nothing of a redirect's body is wanted; left unread it would hold the connection.
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      if (location === null) throw new RedirectRefused(`HTTP ${response.status} without a Location`);
      const next = URL.canParse(location, url) ? new URL(location, url) : null;
      if (next === null) throw new RedirectRefused(`HTTP ${response.status} to a malformed Location`);
      if (next.origin !== origin) {
        throw new RedirectRefused(`HTTP ${response.status} to another origin (${next.origin}), not followed`);
      }
      if (hop + 1 > MAX_REDIRECTS) throw new RedirectRefused(`more than ${MAX_REDIRECTS} redirects`);
      url = next;
    }
  };
}
