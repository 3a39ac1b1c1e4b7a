// The accent button, the site's one call to action style, written once (on a link or a button; the busy state shows
// on a disabled button only).
const ACCENT =
  "inline-flex min-h-11 items-center justify-center bg-accent px-6 py-3 font-semibold text-white shadow transition hover:bg-accent-hover disabled:cursor-wait disabled:bg-accent-muted";

/** A pill: the hero's "Get Updates", the pages' main action. */
export const ACCENT_BUTTON = `${ACCENT} rounded-full`;

/** A form's full-width submit button (the newsletter dialog). */
export const ACCENT_BUTTON_WIDE = `${ACCENT} w-full rounded-lg`;
