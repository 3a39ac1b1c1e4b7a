import { createToastUtilsWithCustomSession } from "remix-toast";
import type { ToastView } from "~/components/toast";
import { TOAST_COOKIE_NAME, toastSessionStorage } from "~/session.server";

// remix-toast (and the zod it depends on) is only ever imported here, so it cannot reach a browser bundle.
const toastUtils = createToastUtilsWithCustomSession(toastSessionStorage);

/** A redirect carrying a toast in the signed flash cookie; 303 so the follow-up request is always a GET. */
export function redirectWithToast(url: string, toast: ToastView, init: ResponseInit = {}): Promise<Response> {
  return toastUtils.redirectWithToast(url, toast, { status: 303, ...init });
}

/** The session cookie that carries a flashed toast; server.mjs never answers a request carrying it from its cache. */
export { TOAST_COOKIE_NAME };

/**
 * Reads (and consumes) the toast flashed into the visitor's session. A response only gets a Set-Cookie when there
 * was a toast to consume, so ordinary page views never set a cookie; a forged or garbled cookie reads as no toast.
 */
export async function readToast(request: Request): Promise<{ toast: ToastView | null; headers?: Headers }> {
  const cookieHeader = request.headers.get("Cookie");
  // remix-toast's getToast always answers with a Set-Cookie; skip it unless our cookie is there at all.
  if (!cookieHeader?.includes(`${TOAST_COOKIE_NAME}=`)) return { toast: null };
  try {
    const { toast } = await toastUtils.getToast(request);
    if (!toast) return { toast: null };
    // The session holds nothing but the toast: once shown, the cookie is deleted rather than rewritten empty.
    const session = await toastSessionStorage.getSession(cookieHeader);
    const headers = new Headers({ "Set-Cookie": await toastSessionStorage.destroySession(session) });
    return {
      toast: {
        type: toast.type,
        message: toast.message,
        ...(toast.description ? { description: toast.description } : {}),
      },
      headers,
    };
  } catch (error) {
    console.warn("Ignoring an unreadable toast cookie:", error instanceof Error ? error.message : error);
    return { toast: null };
  }
}
