import { randomUUID } from "node:crypto";
import type { SubmissionResult } from "@conform-to/react";
import type { Session, SessionStorage } from "@remix-run/node";
import { createToastUtilsWithCustomSession } from "remix-toast";
import type { ShownToast, ToastView } from "~/utils/toast-view";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";
import { PRIVATE_CACHE_CONTROL } from "~/utils/private-response.server";
import { TOAST_COOKIE_NAME, toastSessionStorage } from "~/utils/session.server";

// remix-toast (and the zod it depends on) is only ever imported here, so it cannot reach a browser bundle.

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
export const FLASH_COOKIE_NAMES = [TOAST_COOKIE_NAME];

/** The form's reply's key in the flash session, beside remix-toast's own. */
const FORM_REPLY_KEY = "formReply";
/** The toast's extra line, beside it: remix-toast keeps only the fields it knows. */
const TOAST_NOTE_KEY = "toastNote";

/**
 * The flash session as remix-toast's custom-session API sees it, with a look at the session it asks for: remix-toast
 * flashes and reads only its own key, and this is where the form's reply joins the same session (one cookie, one
 * signature, one Set-Cookie).
 */
function flashStorage(withSession: (session: Session) => void): SessionStorage {
  return {
    ...toastSessionStorage,
    getSession: async (...args) => {
      const session = await toastSessionStorage.getSession(...args);
      withSession(session);
      return session;
    },
  };
}

/**
 * A redirect carrying a toast and the form's reply in the one signed flash cookie; 303 so the follow-up request is
 * always a GET. Visitors with and without JavaScript get the same redirect (post/redirect/get).
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
  const storage = flashStorage((session) => {
    if (formReply) session.flash(FORM_REPLY_KEY, formReply);
    if (toast.note) session.flash(TOAST_NOTE_KEY, toast.note);
  });
  const { note: _note, ...known } = toast;
  return createToastUtilsWithCustomSession(storage).redirectWithToast(url, known, { status: 303, headers });
}

/**
 * Reads (and consumes) what the last form post flashed. A response only gets a Set-Cookie when there was something to
 * consume, so ordinary page views never set a cookie; a forged or garbled cookie reads as nothing.
 */
export async function readFlash(request: Request): Promise<Flash & { headers?: Headers }> {
  if (!(request.headers.get("Cookie") ?? "").includes(`${TOAST_COOKIE_NAME}=`)) return { toast: null, formReply: null };
  try {
    let session: Session | undefined;
    // The cookie is parsed once, by remix-toast. Its getToast answers with a Set-Cookie that rewrites the cookie empty;
    // we delete it instead (a leftover empty cookie would keep the visitor off the page cache for its lifetime).
    const { toast } = await createToastUtilsWithCustomSession(flashStorage((read) => (session = read))).getToast(
      request,
    );
    const reply: unknown = session?.get(FORM_REPLY_KEY);
    const formReply = isFormReply(reply) ? reply : null;
    const note: unknown = session?.get(TOAST_NOTE_KEY);
    if (!toast && !formReply) return { toast: null, formReply: null };
    const headers = new Headers({
      "Set-Cookie": await toastSessionStorage.destroySession(await toastSessionStorage.getSession()),
    });
    const shown = toast
      ? {
          id: randomUUID(),
          type: toast.type,
          message: toast.message,
          ...(toast.description ? { description: toast.description } : {}),
          ...(typeof note === "string" && note ? { note } : {}),
        }
      : null;
    return { toast: shown, formReply, headers };
  } catch (error) {
    console.warn("Ignoring an unreadable toast cookie:", error instanceof Error ? error.message : error);
    return { toast: null, formReply: null };
  }
}

function isFormReply(value: unknown): value is FormReply {
  if (typeof value !== "object" || value === null) return false;
  const { form, outcome, reply } = value as Record<string, unknown>;
  return typeof form === "string" && typeof outcome === "string" && typeof reply === "object" && reply !== null;
}
