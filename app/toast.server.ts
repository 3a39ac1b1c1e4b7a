import type { ToastView } from "~/components/toast";

/** The session cookie that carries a flashed toast; server.mjs never answers a request carrying it from its cache. */
export const TOAST_COOKIE_NAME = "__toast";

/**
 * Reads (and consumes) the toast flashed into the visitor's session. Returns the headers that must go with the
 * response (the updated cookie) when there was one. Implemented with remix-toast in the newsletter work.
 */
export async function readToast(_request: Request): Promise<{ toast: ToastView | null; headers?: Headers }> {
  return { toast: null };
}
