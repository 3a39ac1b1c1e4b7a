// What the pages, the feed and the sitemap say about an update besides its body: its date in words, the challenge's
// day it was written on, its address. Pure: no disk, no clock.
import { ChronoUnit, LocalDate, LocalTime, ZoneId } from "@js-joda/core";
import "@js-joda/timezone";
import { challenge } from "~/content/site";
import type { Update } from "~/updates/update-files.server";

export type UpdateListItem = {
  name: string;
  title: string;
  summary: string | null;
  /** YYYY-MM-DD, for <time dateTime>. */
  date: string;
  /** "1 October 2025". */
  dateText: string;
  /** The challenge's day on that date (Europe/Brussels), as the footer counts it: "Day N". */
  day: number;
  /** The page's path on this site. */
  path: string;
};

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** "2025-10-01" → "1 October 2025" (the date is already a Brussels calendar date: no time zone to apply). */
export function dateInWords(date: string): string {
  const day = LocalDate.parse(date);
  return `${day.dayOfMonth()} ${MONTHS[day.monthValue() - 1]} ${day.year()}`;
}

/** The challenge's day on `date`, counted as the hero and the footer count today: whole days since the start, ≥ 0. */
export function challengeDayOn(date: string, startDate: string = challenge.startDate): number {
  return Math.max(0, LocalDate.parse(startDate).until(LocalDate.parse(date), ChronoUnit.DAYS));
}

/** The first instant of `date` in the challenge's time zone, as an RFC 3339 time (the feed's `updated`). */
export function startOfDay(date: string, timeZone: string = challenge.timeZone): string {
  const instant = LocalDate.parse(date).atStartOfDay(ZoneId.of(timeZone)).toInstant();
  return new Date(instant.toEpochMilli()).toISOString().replace(".000Z", "Z");
}

/**
 * When the update was written, as an RFC 3339 time (the feed's `published`): its `time:` on its date in Brussels, or
 * the start of that day without one. A time the clocks skip (02:30 on the spring change) moves forward an hour.
 */
export function writtenAt(update: Pick<Update, "date" | "time">, timeZone: string = challenge.timeZone): string {
  if (update.time === undefined) return startOfDay(update.date, timeZone);
  const local = LocalDate.parse(update.date).atTime(LocalTime.parse(update.time));
  const instant = local.atZone(ZoneId.of(timeZone)).toInstant();
  return new Date(instant.toEpochMilli()).toISOString().replace(".000Z", "Z");
}

export const updatePath = (name: string): string => `/updates/${encodeURIComponent(name)}`;

export function listItem(update: Update): UpdateListItem {
  return {
    name: update.name,
    title: update.title,
    summary: update.summary ?? null,
    date: update.date,
    dateText: dateInWords(update.date),
    day: challengeDayOn(update.date),
    path: updatePath(update.name),
  };
}
