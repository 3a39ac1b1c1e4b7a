import type { EntryContext } from "@remix-run/node";
import { matchRoutes } from "@remix-run/react";
import type { BootstrapScripts } from "~/perf/scripts-after-first-paint";
import { scriptLiteral } from "~/utils/script-literal";

type Manifest = EntryContext["manifest"];

/**
 * A promise that resolves once the browser reports the first contentful paint (a buffered entry when it is already
 * past). A browser without paint timing goes on after its next frame. The wait is bounded: a page that never gets the
 * entry (a tab loaded in the background paints nothing until shown) or whose observer throws hydrates after
 * FIRST_PAINT_LIMIT_MS all the same. Kept small: it is inline in every page.
 */
export const FIRST_PAINT_LIMIT_MS = 3_000;
export const WAIT_FOR_FIRST_PAINT =
  "new Promise((go) => {" +
  `setTimeout(go, ${FIRST_PAINT_LIMIT_MS});` +
  'if (!(self.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).includes("paint"))) ' +
  "return requestAnimationFrame(() => setTimeout(go));" +
  "try {" +
  "new PerformanceObserver((list, observer) => {" +
  'if (list.getEntriesByName("first-contentful-paint").length) { observer.disconnect(); go(); }' +
  '}).observe({ type: "paint", buffered: true });' +
  "} catch (error) { go(); }" +
  "})";

export interface BootstrapInput {
  manifest: Manifest;
  /** The ids of the routes the page rendered, root first (the static handler's matches). */
  routeIds: string[];
  pathname: string;
  /** Remix's hydration context, already a script-safe literal (Remix escapes it). */
  serverHandoffString: string;
  /** Everything the single-fetch stream carried: the loader data, turbo-stream encoded. */
  streamed: string;
}

/**
 * What `<ScriptsAfterFirstPaint>` writes into a page in place of Remix's `<Scripts>`. No `<link rel="modulepreload">`:
 * no script is requested before the first paint, so Lighthouse's simulation never counts one in FCP or LCP (before:
 * LCP over 1.2 s in 2 of 6 runs; decision 014).
 */
export function bootstrapScripts(input: BootstrapInput): BootstrapScripts {
  const { manifest, routeIds } = input;
  const modules = routeIds.map((id) => scriptLiteral(manifest.routes[id]!.module));
  const names = routeIds.map((_id, index) => `route${index}`);
  const table = routeIds.map((id, index) => `${scriptLiteral(id)}:${names[index]}`).join(",");
  // Promises rather than top-level await: a browser with modules but without it still hydrates.
  const bootstrap =
    `${WAIT_FOR_FIRST_PAINT}.then(() => Promise.all([${modules.map((module) => `import(${module})`).join(", ")}]))` +
    `.then(([${names.join(", ")}]) => {\n` +
    `window.__remixManifest = ${scriptLiteral(partialManifest(manifest, routeIds, input.pathname))};\n` +
    `window.__remixRouteModules = {${table}};\n` +
    `return import(${scriptLiteral(manifest.entry.module)});\n});`;
  const context =
    `window.__remixContext = ${input.serverHandoffString};` +
    "window.__remixContext.stream = new ReadableStream({start(controller) {" +
    `controller.enqueue(${scriptLiteral(input.streamed)});controller.close();` +
    "}}).pipeThrough(new TextEncoderStream());";
  return { context, bootstrap };
}

type RouteTree = Parameters<typeof matchRoutes>[0];
interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children: RouteNode[];
}

/**
 * The manifest the page starts with (lazy route discovery): the routes it rendered, and those its parent paths match
 * (their index and pathless routes), so the browser can resolve the page's own links upwards without asking the
 * server. Any other route it discovers when a link to it shows, as Remix does.
 */
export function partialManifest(manifest: Manifest, routeIds: string[], pathname: string): Manifest {
  const nodes = new Map<string, RouteNode>();
  for (const route of Object.values(manifest.routes)) {
    nodes.set(route.id, {
      id: route.id,
      path: route.path,
      index: route.index,
      caseSensitive: route.caseSensitive,
      children: [],
    });
  }
  const tree: RouteNode[] = [];
  for (const route of Object.values(manifest.routes)) {
    const node = nodes.get(route.id)!;
    const parent = route.parentId === undefined ? undefined : nodes.get(route.parentId);
    (parent ? parent.children : tree).push(node);
  }
  const ids = new Set(routeIds);
  const segments = pathname.split("/").filter((segment) => segment !== "");
  for (let length = segments.length - 1; length >= 0; length--) {
    const path = `/${segments.slice(0, length).join("/")}`;
    for (const { route } of matchRoutes(tree as RouteTree, path) ?? []) if (route.id !== undefined) ids.add(route.id);
  }
  const routes: Manifest["routes"] = {};
  for (const id of ids) routes[id] = manifest.routes[id]!;
  return { ...manifest, routes };
}
