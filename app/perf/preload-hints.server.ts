import type { EntryContext } from "@remix-run/node";

/**
 * The entry context with the shared chunks (React, React DOM, Remix) left out of what `<Scripts>` preloads.
 *
 * `<Scripts>` puts a `<link rel="modulepreload">` for every module of the page into the HTML, so the browser fetches
 * all the JavaScript, at high priority, while it parses. On a fast link it has all of it before its first frame, and
 * Lighthouse's simulation (what PageSpeed Insights reports) then counts every request that finished before the
 * observed first paint as needed for that paint: the ~85 KiB of React and Remix are "downloaded" on a slow 4G line
 * before anything shows (FCP = LCP ≈ 2 s, decision 002). Without these hints the chunks are fetched when the route
 * modules that import them have arrived, one round trip later, after the page has painted; the entry and route
 * modules themselves (a few KiB) are still preloaded, since `<Scripts>` always lists them.
 *
 * The same manifest goes into the page (`window.__remixManifest`), so the browser renders the same links when it
 * hydrates. `imports` only serve these hints and `<PrefetchPageLinks>`, which the site does not use.
 */
export function withoutPreloadedChunks(context: EntryContext): EntryContext {
  return { ...context, manifest: trimmedManifest(context.manifest) };
}

type Manifest = EntryContext["manifest"];
// One manifest per build: its copy is made once, not on every render.
const trimmed = new WeakMap<Manifest, Manifest>();

function trimmedManifest(manifest: Manifest): Manifest {
  let copy = trimmed.get(manifest);
  if (!copy) {
    const routes: Manifest["routes"] = {};
    for (const [id, route] of Object.entries(manifest.routes)) routes[id] = { ...route, imports: [] };
    copy = { ...manifest, entry: { ...manifest.entry, imports: [] }, routes };
    trimmed.set(manifest, copy);
  }
  return copy;
}
