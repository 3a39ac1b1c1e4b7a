// The mail's look, in two forms: a <style> block (dark mode, headings, quotes, code, links that wrap) for the clients
// that keep one, and inline styles on the layout's own elements for those that strip it, so a mail still has its
// width, font, button and footer there. Light by default; `!important` lets the dark block win over the inline
// styles. No remote image, font or stylesheet: nothing loads, nothing reports an open.
import type { CSSProperties } from "react";

const FONT = '-apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';
const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

/** Colours, each at least 4.5:1 against its background (WCAG AA), in both schemes. */
const LIGHT = { page: "#ffffff", ink: "#1f2937", muted: "#4b5563", rule: "#d1d5db", link: "#1d4ed8", quote: "#374151" };
const DARK = { page: "#111827", ink: "#e5e7eb", muted: "#9ca3af", rule: "#374151", link: "#93c5fd", quote: "#d1d5db" };
const BUTTON = { light: "#4338ca", dark: "#4f46e5", ink: "#ffffff" };
const CODE_BACKGROUND = { light: "#f3f4f6", dark: "#1f2937" };

// A long address or word breaks rather than widening the mail past the screen.
const WRAP = "overflow-wrap: anywhere; word-wrap: break-word; word-break: break-word;";

// Written readably here, sent with its whitespace collapsed.
export const STYLE = `
:root { color-scheme: light dark; supported-color-schemes: light dark; }
body { margin: 0; padding: 0; background: ${LIGHT.page}; color: ${LIGHT.ink}; -webkit-text-size-adjust: 100%; }
.mail { box-sizing: border-box; width: 100%; max-width: 600px; margin: 0 auto; padding: 24px 16px;
  font: 16px/1.6 ${FONT}; ${WRAP} }
.mail a { color: ${LIGHT.link}; ${WRAP} }
.brand { margin: 0 0 24px; padding-bottom: 12px; border-bottom: 1px solid ${LIGHT.rule}; font-size: 14px;
  font-weight: 600; color: ${LIGHT.muted}; }
h1 { margin: 0 0 16px; font-size: 26px; line-height: 1.25; }
h2 { margin: 28px 0 8px; font-size: 21px; line-height: 1.3; }
h3, h4, h5, h6 { margin: 24px 0 8px; font-size: 17px; line-height: 1.4; }
p, ul, ol { margin: 0 0 16px; }
ul, ol { padding-left: 24px; }
li { margin: 4px 0; }
blockquote { margin: 16px 0; padding: 2px 0 2px 16px; border-left: 4px solid ${LIGHT.muted}; color: ${LIGHT.quote}; }
blockquote p:last-child { margin-bottom: 0; }
pre { margin: 16px 0; padding: 12px; border-radius: 6px; background: ${CODE_BACKGROUND.light};
  white-space: pre-wrap; ${WRAP} font: 14px/1.5 ${MONO}; }
code { padding: 1px 4px; border-radius: 4px; background: ${CODE_BACKGROUND.light}; font: 0.9em ${MONO}; ${WRAP} }
pre code { padding: 0; background: none; font: inherit; }
table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; }
th, td { padding: 4px 8px; border: 1px solid ${LIGHT.rule}; }
hr { border: 0; border-top: 1px solid ${LIGHT.rule}; margin: 24px 0; }
.mail a.button { display: block; box-sizing: border-box; max-width: 100%; padding: 14px 20px; border-radius: 9999px;
  background: ${BUTTON.light}; color: ${BUTTON.ink}; font-weight: 600; text-align: center; text-decoration: none; }
.note { padding: 8px 12px; border: 1px solid #b45309; }
.foot { margin: 32px 0 0; padding-top: 16px; border-top: 1px solid ${LIGHT.rule}; font-size: 14px; color: ${LIGHT.muted}; }
@media (prefers-color-scheme: dark) {
  body, .mail { background: ${DARK.page} !important; color: ${DARK.ink} !important; }
  .mail a { color: ${DARK.link} !important; }
  .mail a.button { background: ${BUTTON.dark} !important; color: ${BUTTON.ink} !important; }
  .brand, .foot { color: ${DARK.muted} !important; border-color: ${DARK.rule} !important; }
  blockquote { border-left-color: ${DARK.muted} !important; color: ${DARK.quote} !important; }
  pre, code { background: ${CODE_BACKGROUND.dark} !important; }
  pre code { background: none !important; }
  th, td, hr { border-color: ${DARK.rule} !important; }
  .note { border-color: #f59e0b !important; }
}
@media (max-width: 360px) {
  .mail { padding: 16px 12px; }
  h1 { font-size: 22px; }
}
`
  .replace(/\s+/g, " ")
  .trim();

/** Inline styles: what a client without <style> still shows. */
export const INLINE: Record<"body" | "mail" | "brand" | "button" | "note" | "foot", CSSProperties> = {
  body: { margin: 0, padding: 0, background: LIGHT.page, color: LIGHT.ink },
  mail: {
    boxSizing: "border-box",
    width: "100%",
    maxWidth: 600,
    margin: "0 auto",
    padding: "24px 16px",
    font: `16px/1.6 ${FONT}`,
    overflowWrap: "anywhere",
    wordBreak: "break-word",
  },
  brand: { margin: "0 0 24px", fontSize: 14, fontWeight: 600, color: LIGHT.muted },
  button: {
    display: "block",
    boxSizing: "border-box",
    maxWidth: "100%",
    padding: "14px 20px",
    borderRadius: 9999,
    background: BUTTON.light,
    color: BUTTON.ink,
    fontWeight: 600,
    textAlign: "center",
    textDecoration: "none",
  },
  note: { padding: "8px 12px", border: "1px solid #b45309" },
  foot: { margin: "32px 0 0", paddingTop: 16, fontSize: 14, color: LIGHT.muted },
};
