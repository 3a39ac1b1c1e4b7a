// js-joda's timezone database is large; the `.server` suffix keeps it out of the browser bundle.
import { ChronoUnit, Instant, LocalDate, ZoneId } from "@js-joda/core";
import "@js-joda/timezone";

export interface ChallengeDays {
  /** The calendar date "today" in the challenge's time zone, as YYYY-MM-DD. */
  today: string;
  daysIn: number;
  daysLeft: number;
  /** Days in / length as a rounded percentage, not capped at 100. */
  progressPercent: number;
  lengthInDays: number;
}

export interface ChallengeSettings {
  startDate: string;
  timeZone: string;
  lengthInDays: number;
}

/** The calendar date at `now` in `timeZone`. */
export function localDateAt(now: Date, timeZone: string): LocalDate {
  return Instant.ofEpochMilli(now.getTime()).atZone(ZoneId.of(timeZone)).toLocalDate();
}

export function challengeDays(now: Date, settings: ChallengeSettings): ChallengeDays {
  const today = localDateAt(now, settings.timeZone);
  const start = LocalDate.parse(settings.startDate);
  const daysIn = Math.max(0, start.until(today, ChronoUnit.DAYS));
  return {
    today: today.toString(),
    daysIn,
    daysLeft: Math.max(0, settings.lengthInDays - daysIn),
    progressPercent: Math.round((daysIn / settings.lengthInDays) * 100),
    lengthInDays: settings.lengthInDays,
  };
}

/** The first instant of the next calendar day in `timeZone`: when the numbers change. */
export function nextMidnight(now: Date, timeZone: string): Date {
  const zone = ZoneId.of(timeZone);
  const tomorrow = localDateAt(now, timeZone).plusDays(1);
  return new Date(tomorrow.atStartOfDay(zone).toInstant().toEpochMilli());
}
