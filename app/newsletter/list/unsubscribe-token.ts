// The shape of an unsubscribe token, on its own: the request guard checks a link's shape before anything opens the
// list, and the list, the unsubscribe action and the backup checks share the same rule.

/** An unsubscribe token: a random (version 4) UUID, given to every subscriber when stored. */
const UNSUBSCRIBE_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isUnsubscribeToken = (value: unknown): value is string =>
  typeof value === "string" && UNSUBSCRIBE_TOKEN.test(value);
