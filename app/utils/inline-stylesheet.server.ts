import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import stylesheet from "~/tailwind.css";

export interface InlineStylesheet {
  css: string;
  /** The CSP source that allows exactly this `<style>` element, e.g. 'sha256-…'. */
  cspSource: string;
}

/**
 * The site's whole stylesheet (about 5 KiB gzip), read once from the built asset to be inlined into every page: the
 * first paint then waits for the HTML only, not for a second request (docs/decisions/006-page-cache-and-csp.md).
 * Null when the file cannot be read: pages then link the stylesheet as usual.
 */
function readInlineStylesheet(): InlineStylesheet | null {
  try {
    // The server build lives in build/, the assets in public/build/.
    const css = readFileSync(new URL(`../public${stylesheet}`, import.meta.url), "utf8");
    return { css, cspSource: `'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'` };
  } catch {
    console.warn(`The stylesheet ${String(stylesheet)} could not be read: pages link it instead of inlining it.`);
    return null;
  }
}

export const inlineStylesheet = readInlineStylesheet();
