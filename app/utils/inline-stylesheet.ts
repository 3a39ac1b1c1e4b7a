import { createContext, useContext } from "react";

/** The id of the inlined `<style>` element: the browser reads the stylesheet back from it instead of downloading it. */
export const INLINE_STYLESHEET_ID = "site-css";

/** The built stylesheet's text, provided by entry.server (never through loader data, which would repeat it). */
export const InlineStylesheetContext = createContext<string | null>(null);

let fromDocument: string | null | undefined;

/**
 * The stylesheet to inline, or null when the page links it instead. In the browser it is whatever the server put in
 * the page, so hydration renders exactly the same `<style>`.
 */
export function useInlineStylesheet(): string | null {
  const fromServer = useContext(InlineStylesheetContext);
  if (typeof document === "undefined") return fromServer;
  fromDocument ??= document.getElementById(INLINE_STYLESHEET_ID)?.textContent ?? null;
  return fromDocument;
}
