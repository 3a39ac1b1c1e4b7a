// What an updates page says when it cannot be built. Browser-safe: the error boundary renders on both sides.

/**
 * Under `npm run dev` (mode "development"), a bad update file's own line ("Update file <name>: <field> <problem>"),
 * so the owner sees what to fix on the page they are previewing; null otherwise, and always in production, where the
 * site's generic error page stays (the details are in the server's log). Remix hands the browser a loader's error
 * message in development only.
 */
export function devUpdateError(error: unknown, mode: string | undefined): string | null {
  if (mode !== "development" || !(error instanceof Error)) return null;
  return /^Update file [^\n]+: [^\n]+$/.test(error.message) ? error.message : null;
}
