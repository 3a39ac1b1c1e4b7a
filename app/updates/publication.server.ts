// When an update is public: from the first instant of its date in Europe/Brussels (the challenge's time zone), never
// before, and never as a draft. Pure (the caller says what day it is: challengeToday().days.today), so that the site's
// pages, the feed, the sitemap and the sending command decide alike.
import type { Update } from "~/updates/update-files.server";

type Dated = Pick<Update, "date" | "draft">;

/** The Brussels calendar day (YYYY-MM-DD) from whose midnight the update may be shown and sent: its date. */
export const publicationDay = (update: Pick<Update, "date">): string => update.date;

/** Whether its day has begun on `today` (YYYY-MM-DD, Europe/Brussels), draft or not. */
export const isDue = (update: Pick<Update, "date">, today: string): boolean => publicationDay(update) <= today;

/** Whether the site shows `update` on `today` (YYYY-MM-DD, Europe/Brussels): not a draft, and its day has begun. */
export const isPublished = (update: Dated, today: string): boolean => !update.draft && isDue(update, today);

/**
 * For a command that would send `update` on `today`: why not yet ("not before 2026-12-01 (Europe/Brussels)"), or null
 * once its day has begun.
 */
export const notBefore = (update: Pick<Update, "date">, today: string): string | null =>
  isDue(update, today) ? null : `not before ${publicationDay(update)} (Europe/Brussels)`;
