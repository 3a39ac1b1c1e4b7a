import { createCookie, createCookieSessionStorage } from "@remix-run/node";
import { env } from "~/utils/env.server";

export const TOAST_COOKIE_NAME = "__toast";
export const FORM_REPLY_COOKIE_NAME = "__form";

// Both cookies only have to survive one redirect, hence the short lifetime; both are signed with SESSION_SECRET, so a
// forged one reads as empty.
const flashCookieOptions = {
  secrets: [env.SESSION_SECRET],
  httpOnly: true,
  sameSite: "lax" as const,
  secure: env.NODE_ENV === "production",
  path: "/",
  maxAge: 60,
};

/**
 * The session that carries a flashed toast across the redirect after a form post. It is our own storage rather than
 * remix-toast's default one because that one's signature is a no-op.
 */
export const toastSessionStorage = createCookieSessionStorage({
  cookie: { name: TOAST_COOKIE_NAME, ...flashCookieOptions },
});

/** Carries Conform's reply to the last form post across the same redirect (remix-toast's session holds only toasts). */
export const formReplyCookie = createCookie(FORM_REPLY_COOKIE_NAME, flashCookieOptions);
