/**
 * Remix's `<Scripts>`, rewritten so that the browser asks for no script before the page's first contentful paint
 * (docs/decisions/014-scripts-after-first-paint.md). Buys: no script request before the first paint, so Lighthouse's
 * simulation never counts one in FCP or LCP (before: LCP over 1.2 s in 2 of 6 runs; app/perf/README.md).
 *
 * `<Scripts>` writes a `<link rel="modulepreload">` for the entry and each route module, and an inline
 * `<script type="module">` that imports the route modules statically and then the entry, which hydrates. The
 * browser fetches all of that while it parses, before its first frame on a fast link, and Lighthouse's simulation
 * (PageSpeed Insights) counts every request that ended before the observed paint as needed for it: the score then
 * depends on a race between the scripts and the first frame.
 *
 * Two changes to the rendered HTML, nothing else of Remix's output:
 * - the modulepreload links lose their `rel`, so they fetch nothing. The elements stay, because React hydrates the
 *   same `<link>` elements there (a production build does not compare attributes when it hydrates);
 * - the bootstrap module waits for the first contentful paint to be reported (the paint has been presented), then
 *   imports the same route modules with `import()` (the same module namespace objects as `import * as`), and runs the
 *   rest of Remix's code unchanged: the manifest, the route modules' table, `import(entry)`.
 *
 * Anything that does not look like Remix's output is left as it is (the page then works as before, only earlier).
 */
export function scriptsAfterFirstPaint(html: string): string {
  return html.replace(MODULE_PRELOAD, "<link$1").replace(BOOTSTRAP, (whole, open: string, body: string) => {
    const deferred = deferredBootstrap(body);
    return deferred === null ? whole : `${open}${deferred}</script>`;
  });
}

const MODULE_PRELOAD = /<link((?: [^>]*?)?) rel="modulepreload"/g;
// Remix writes exactly one inline module script: `<script type="module" async="">` (with a nonce when it has one).
const BOOTSTRAP = /(<script(?= )[^>]*? type="module"[^>]*>)([\s\S]*?)<\/script>/;
const STATIC_IMPORT = /^import (?:\* as ([A-Za-z_$][\w$]*) from )?("[^"\n]+");$/gm;

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

/** Remix's bootstrap with its static imports turned into imports after the first paint, or null if it has none. */
export function deferredBootstrap(body: string): string | null {
  const imports: { name: string | undefined; specifier: string }[] = [];
  const rest = body.replace(STATIC_IMPORT, (_line, name: string | undefined, specifier: string) => {
    imports.push({ name, specifier });
    return "";
  });
  if (imports.length === 0) return null;
  const names = imports.map(({ name }, index) => name ?? `_${index}`);
  const loads = imports.map(({ specifier }) => `import(${specifier})`);
  // Promises rather than top-level await: a browser with modules but without it still hydrates.
  return `${WAIT_FOR_FIRST_PAINT}.then(() => Promise.all([${loads.join(", ")}])).then(([${names.join(", ")}]) => {${rest}\n});`;
}
