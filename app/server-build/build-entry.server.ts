// The server build's entry (remix.config.js `server`): build/index.js exports Remix's build (routes, assets, entry)
// and, beside it, what our own server (server/index.mjs) and the owner's tools (scripts/subscribers.mjs) take from the
// app. One build, so one copy of each module: the tools use the very store the server uses.
import { owner } from "~/content/site";
import { subscriberTools } from "~/newsletter/admin/subscriber-admin.server";
import { newsletterCommands } from "~/newsletter/send/newsletter-tool.server";
import { services, startServices, stopServices } from "~/server-build/services.server";
import { checkFeatureSettings } from "~/server-build/settings.server";
import { env } from "~/utils/env.server";
import { createRequestGuard, type RequestGuard, type RequestGuardOptions } from "~/server-build/request-guard.server";
import { resourceHeaders } from "~/utils/security-headers.server";
import { FLASH_COOKIE_NAMES } from "~/utils/toast.server";

export * from "@remix-run/dev/server-build";

// Importing env here parses it when the server loads the build, and each feature checks its own variables then: a
// bad value stops start-up (the server's and the owner's tools'), not a request.
checkFeatureSettings(env);
export { env };

/** The server's services, composed (composition.server.ts) and started; the owner's tools compose their own lazily. */
export const onStart = () => void startServices();

/** Stops the services and closes the list when the server or a tool stops. */
export const onShutdown = stopServices;

/**
 * The anonymous home page's cache key at `now`, or null when it must be rendered, and the header through which a
 * render says the key of its page (server/page-cache.mjs).
 */
export { homePageCacheKey, RENDERED_KEY_HEADER as renderedKeyHeader } from "./home-page-key.server";

/** A request carrying one of these cookies may have a toast to show: it is never answered from the page cache. */
export const flashCookieNames: string[] = FLASH_COOKIE_NAMES;

/** Headers for the static files the server serves itself; `https` as Express sees it (TRUST_PROXY-aware). */
export const staticHeaders: (https: boolean) => Record<string, string> = resourceHeaders;

/** How the server reads `X-Forwarded-Proto` and `If-None-Match`: as the app does. */
export { firstValue, matchesEtag } from "~/utils/http-fields.server";

/** Answers malformed, oversized and cross-site requests before anything else runs (server/index.mjs, first). */
export const requestGuard = (options: Pick<RequestGuardOptions, "isHttps">): RequestGuard =>
  createRequestGuard({ ...options, trustProxy: env.TRUST_PROXY, siteUrl: owner.siteUrl });

/**
 * The last resort for whatever throws around Remix: the site's 500 page and one throttled line; one such line for a
 * rejection nothing handles, or any other fault the server meets (server/index.mjs, server/page-cache.mjs).
 */
export { answerServerError, reportFault, reportUnhandledRejection } from "~/server-build/server-error.server";

/** The owner's update command (npm run newsletter). */
export const newsletterTool = newsletterCommands(services);

/** The owner's subscriber tools (npm run subscribers). */
export const subscriberAdmin = subscriberTools(services);

/** What the server (at start) and the owner's tools say about the settings: lookalikes, a key open to all, mail's state. */
export { mailStartupLine, refuseMailLookalikes, settingsWarnings } from "~/server-build/env-report.server";
