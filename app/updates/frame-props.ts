import type { UpdatesCopy } from "~/content/site";

/**
 * What the updates pages' frame (app/components/updates-frame.tsx) is given by the server: the owner's name, the year
 * for the copyright line, and the owner's words for the updates pages (updatesCopy in app/content/site.ts).
 */
export type FrameProps = { ownerName: string; year: number; copy: UpdatesCopy };
