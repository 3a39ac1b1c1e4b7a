// The unsubscribe token's shape and the link that carries it, on their own: the request guard checks a link's shape
// before anything opens the list; the list, the unsubscribe action and the backup checks share the rule, and every
// mail and the export write the link the same way.

/** An unsubscribe token: a random (version 4) UUID, given to every subscriber when stored. */
const UNSUBSCRIBE_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isUnsubscribeToken = (value: unknown): value is string =>
  typeof value === "string" && UNSUBSCRIBE_TOKEN.test(value);

/** The one-click unsubscribe link of a subscriber, on the site's own address. */
export function unsubscribeLink(siteUrl: string, token: string): string {
  const url = new URL("/unsubscribe", siteUrl);
  url.searchParams.set("token", token);
  return url.toString();
}
