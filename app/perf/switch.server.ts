import type { EntryContext } from "@remix-run/node";
import { env } from "~/utils/env.server";
import { scriptsAfterFirstPaint } from "~/perf/after-first-paint.server";
import { withoutPreloadedChunks } from "~/perf/preload-hints.server";

/** Whether the page-speed work of this folder is on: PERF_TWEAKS=off turns all of it off (app/perf/README.md). */
export const perfTweaksOn = env.PERF_TWEAKS === "on";

/** The entry context `<Scripts>` renders from: without the shared chunks' preload hints when the tweaks are on. */
export const contextToRender = (context: EntryContext): EntryContext =>
  perfTweaksOn ? withoutPreloadedChunks(context) : context;

/**
 * The rendered document as it is sent: with the tweaks on, in production, Remix's bootstrap waits for the first
 * paint. Production builds only (the compiler's NODE_ENV): the development build's React compares attributes while
 * hydrating and would report the inert preload links; nothing is measured there.
 */
export const documentToSend = (html: string): string =>
  perfTweaksOn && process.env.NODE_ENV === "production" ? scriptsAfterFirstPaint(html) : html;
