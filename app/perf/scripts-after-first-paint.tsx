import { createContext, useContext } from "react";

/**
 * The two inline scripts of a page, as text (built by ./bootstrap-scripts.server.ts):
 * - `context`: Remix's hydration context and its loader data (the single-fetch stream, here whole and closed), a
 *   classic script, so it has run before anything imports the entry;
 * - `bootstrap`: a module that waits for the first contentful paint, then imports the page's route modules and the
 *   entry, which hydrates.
 */
export interface BootstrapScripts {
  context: string;
  bootstrap: string;
}

/**
 * The scripts of the page being rendered, built by `entry.server` (./bootstrap-scripts.server.ts). Only the server has
 * them: in the browser the elements are already in the document, and React keeps what it finds there.
 */
export const BootstrapScriptsContext = createContext<BootstrapScripts | undefined>(undefined);

/**
 * Remix's `<Scripts>`, in a form that asks the browser for no script before the page's first contentful paint
 * (docs/decisions/014-scripts-after-first-paint.md): no `<link rel="modulepreload">`, and a bootstrap module that
 * imports the route modules and the entry once the paint has been reported. Rendered where `<Scripts>` was, by the
 * server and the browser alike: two `<script>` elements, whose text React leaves as the server wrote it when it
 * hydrates (the browser has no use for it any more, and would not run it again). The loader data is in the context
 * script, inside the body, instead of the stream scripts Remix appends after `</html>`.
 */
export function ScriptsAfterFirstPaint({ nonce }: { nonce: string | undefined }) {
  const scripts = useContext(BootstrapScriptsContext);
  const server = typeof document === "undefined";
  // A server render without the scripts (the switch off with a root that failed) sends a page without JavaScript.
  if (server && !scripts) return null;
  return (
    <>
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: scripts?.context ?? "" }} />
      <script
        type="module"
        async
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: scripts?.bootstrap ?? "" }}
      />
    </>
  );
}
