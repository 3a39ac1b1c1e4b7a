import type { EntryContext } from "@remix-run/node";

/**
 * For every response that carries one visitor's data (the flashed toast, Conform's reply with the typed address, a
 * data request): no shared cache may keep it, and the browser keeps no copy either.
 */
export const PRIVATE_CACHE_CONTROL = "private, no-store";

/**
 * Whether a rendered page carries the visitor's own data: it sets a cookie (the flash it consumed), renders an action's
 * answer, or was asked for with a flash cookie (even one that reads as nothing: the page cache passes those by too).
 */
export function carriesVisitorData(
  request: Request,
  responseHeaders: Headers,
  context: EntryContext,
  flashCookieNames: readonly string[],
): boolean {
  if (responseHeaders.has("Set-Cookie")) return true;
  if (context.staticHandlerContext.actionData) return true;
  const cookie = request.headers.get("Cookie") ?? "";
  return flashCookieNames.some((name) => cookie.includes(`${name}=`));
}
