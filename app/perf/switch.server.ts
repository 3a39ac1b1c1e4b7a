import type { EntryContext } from "@remix-run/node";
import { env } from "~/utils/env.server";
import { bootstrapScripts } from "~/perf/bootstrap-scripts.server";
import { withoutPreloadedChunks } from "~/perf/preload-hints.server";
import type { BootstrapScripts } from "~/perf/scripts-after-first-paint";

/** Whether the page-speed work of this folder is on: PERF_TWEAKS=off turns all of it off (app/perf/README.md). */
export const perfTweaksOn = env.PERF_TWEAKS === "on";

/**
 * What `entry.server` renders from: with the tweaks on, the entry context without the shared chunks' preload hints and
 * without its single-fetch stream, which is read here, whole, into the scripts `<ScriptsAfterFirstPaint>` writes
 * (Remix would append the stream's scripts after `</html>`); with them off, Remix's context as it is, for `<Scripts>`.
 */
export async function contextToRender(
  context: EntryContext,
  pathname: string,
): Promise<{ context: EntryContext; scripts: BootstrapScripts | undefined }> {
  if (!perfTweaksOn) return { context, scripts: undefined };
  const { serverHandoffStream, ...rest } = context;
  const streamed = serverHandoffStream ? await new Response(serverHandoffStream).text() : "";
  const trimmed = withoutPreloadedChunks(rest);
  const scripts = bootstrapScripts({
    manifest: trimmed.manifest,
    routeIds: context.staticHandlerContext.matches.map((match) => match.route.id),
    pathname,
    serverHandoffString: context.serverHandoffString ?? "{}",
    streamed,
  });
  return { context: trimmed, scripts };
}
