import { randomUUID } from "node:crypto";
import type { SubmissionResult } from "@conform-to/react";
import { createToastUtilsWithCustomSession } from "remix-toast";
import type { ShownToast, ToastView } from "~/utils/toast-view";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";
import { PRIVATE_CACHE_CONTROL } from "~/utils/private-response.server";
import {
  FORM_REPLY_COOKIE_NAME,
  TOAST_COOKIE_NAME,
  formReplyCookie,
  toastSessionStorage,
} from "~/utils/session.server";

// remix-toast (and the zod it depends on) is only ever imported here, so it cannot reach a browser bundle.
const toastUtils = createToastUtilsWithCustomSession(toastSessionStorage);

/** What a form's action tells the page it redirects to: the outcome, and Conform's reply for `useForm`. */
export interface FormReply<Outcome extends string = string> {
  form: string;
  outcome: Outcome;
  reply: SubmissionResult<string[]>;
}

/** What the root loader hands to the page after a form post: the toast to show and the form's reply, if any. */
export interface Flash {
  /** A fresh id per flashed toast, so the same text flashed twice is shown twice. */
  toast: ShownToast | null;
  formReply: FormReply | null;
}

/** The cookies that carry a flash; server/index.mjs never answers a request carrying one from its page cache. */
export const FLASH_COOKIE_NAMES = [TOAST_COOKIE_NAME, FORM_REPLY_COOKIE_NAME];

/**
 * A redirect carrying a toast in the signed flash cookie, and the form's reply beside it; 303 so the follow-up request
 * is always a GET. Visitors with and without JavaScript get the same redirect (post/redirect/get).
 */
export async function redirectWithToast(
  request: Request,
  url: string,
  toast: ToastView,
  formReply?: FormReply,
): Promise<Response> {
  // Remix sends an action's redirect as it is, past entry.server: it carries the resource headers itself.
  const headers = new Headers(resourceHeaders(isHttps(request)));
  // Its cookies hold the toast and the typed address.
  headers.set("Cache-Control", PRIVATE_CACHE_CONTROL);
  if (formReply) headers.append("Set-Cookie", await formReplyCookie.serialize(formReply));
  return toastUtils.redirectWithToast(url, toast, { status: 303, headers });
}

/**
 * Reads (and consumes) what the last form post flashed. A response only gets a Set-Cookie when there was something to
 * consume, so ordinary page views never set a cookie; a forged or garbled cookie reads as nothing.
 */
export async function readFlash(request: Request): Promise<Flash & { headers?: Headers }> {
  const cookieHeader = request.headers.get("Cookie") ?? "";
  const headers = new Headers();
  const [toast, formReply] = await Promise.all([
    cookieHeader.includes(`${TOAST_COOKIE_NAME}=`) ? consumeToast(request, headers) : null,
    cookieHeader.includes(`${FORM_REPLY_COOKIE_NAME}=`) ? consumeFormReply(cookieHeader, headers) : null,
  ]);
  return { toast, formReply, ...(headers.has("Set-Cookie") ? { headers } : {}) };
}

async function consumeToast(request: Request, headers: Headers): Promise<Flash["toast"]> {
  try {
    // The cookie is parsed once, by remix-toast. Its getToast answers with a Set-Cookie that rewrites the cookie empty;
    // we delete it instead (a leftover empty cookie would keep the visitor off the page cache for its lifetime), and
    // deleting a cookie session needs no parsed session.
    const { toast } = await toastUtils.getToast(request);
    if (!toast) return null;
    headers.append("Set-Cookie", await toastSessionStorage.destroySession(await toastSessionStorage.getSession()));
    return {
      id: randomUUID(),
      type: toast.type,
      message: toast.message,
      ...(toast.description ? { description: toast.description } : {}),
    };
  } catch (error) {
    console.warn("Ignoring an unreadable toast cookie:", error instanceof Error ? error.message : error);
    return null;
  }
}

async function consumeFormReply(cookieHeader: string, headers: Headers): Promise<FormReply | null> {
  let value: unknown;
  try {
    value = await formReplyCookie.parse(cookieHeader);
  } catch {
    return null;
  }
  if (!isFormReply(value)) return null;
  headers.append("Set-Cookie", await formReplyCookie.serialize("", { maxAge: 0 }));
  return value;
}

function isFormReply(value: unknown): value is FormReply {
  if (typeof value !== "object" || value === null) return false;
  const { form, outcome, reply } = value as Record<string, unknown>;
  return typeof form === "string" && typeof outcome === "string" && typeof reply === "object" && reply !== null;
}
