import { createCookieSessionStorage } from "@remix-run/node";
import { env } from "~/utils/env.server";

export const TOAST_COOKIE_NAME = "__toast";

/**
 * The one flash session: remix-toast's toast and Conform's reply to the last form post travel in it across one
 * redirect, hence the short lifetime. It is our own storage rather than remix-toast's default one because that one's
 * signature is a no-op; signed with SESSION_SECRET, a forged cookie reads as empty.
 */
export const toastSessionStorage = createCookieSessionStorage({
  cookie: {
    name: TOAST_COOKIE_NAME,
    secrets: [env.SESSION_SECRET],
    httpOnly: true,
    sameSite: "lax",
    secure: env.NODE_ENV === "production",
    path: "/",
    maxAge: 60,
  },
});
