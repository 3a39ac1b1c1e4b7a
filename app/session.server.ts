import { createCookieSessionStorage } from "@remix-run/node";
import { env } from "~/env.server";

export const TOAST_COOKIE_NAME = "__toast";

/**
 * The session that carries a flashed toast across the redirect after a form post. It is our own storage rather than
 * remix-toast's default one because that one's signature is a no-op: ours is signed with SESSION_SECRET, so a
 * forged cookie reads as empty. The cookie only has to survive one redirect, hence the short lifetime.
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
