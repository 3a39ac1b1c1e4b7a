import { challenge } from "~/content/site";
import { challengeDays, type ChallengeDays, localDateAt, nextMidnight } from "~/utils/days.server";
import { ZoneId } from "@js-joda/core";

/** The challenge's day: its numbers, and the instants (epoch ms) it starts and ends in the challenge's time zone. */
export interface ChallengeToday {
  days: ChallengeDays;
  from: number;
  until: number;
}

// Every page, the card, the sitemap and the page cache's key ask for today: it is worked out once per day.
let memo: ChallengeToday | null = null;

/**
 * "Today" for the whole site (the page's loader, the social card, the sitemap, the page cache's key): the day at `now`
 * in Europe/Brussels, kept until the next midnight there. Any `now` gets its own day, earlier ones too.
 */
export function challengeToday(now: Date = new Date()): ChallengeToday {
  const time = now.getTime();
  if (!memo || time < memo.from || time >= memo.until) {
    const start = localDateAt(now, challenge.timeZone).atStartOfDay(ZoneId.of(challenge.timeZone));
    memo = {
      days: challengeDays(now, challenge),
      from: start.toInstant().toEpochMilli(),
      until: nextMidnight(now, challenge.timeZone).getTime(),
    };
  }
  return memo;
}
