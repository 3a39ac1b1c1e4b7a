import { describe, expect, it } from "vitest";
import { challenge } from "~/content/site";
import { challengeDays } from "~/utils/days.server";
import { challengeToday } from "~/utils/today.server";

describe("challengeToday: one 'today' for the site, kept until the next Brussels midnight", () => {
  it("gives the same answer as challengeDays, and the Brussels day's bounds", () => {
    // 22:59 UTC on a winter day is 23:59 in Brussels; 23:00 UTC is the next day there.
    const before = new Date("2026-01-10T22:59:59.999Z");
    const after = new Date("2026-01-10T23:00:00.000Z");
    const first = challengeToday(before);
    expect(first.days).toEqual(challengeDays(before, challenge));
    expect(first.days.today).toBe("2026-01-10");
    expect(new Date(first.from).toISOString()).toBe("2026-01-09T23:00:00.000Z");
    expect(new Date(first.until).toISOString()).toBe("2026-01-10T23:00:00.000Z");
    expect(challengeToday(after).days.today).toBe("2026-01-11");
  });

  it("is worked out once per day: the same object for every moment of that day", () => {
    const morning = challengeToday(new Date("2026-07-01T05:00:00Z"));
    expect(challengeToday(new Date("2026-07-01T20:00:00Z"))).toBe(morning);
    // Summer time: midnight in Brussels is 22:00 UTC.
    expect(new Date(morning.until).toISOString()).toBe("2026-07-01T22:00:00.000Z");
    expect(challengeToday(new Date("2026-07-01T22:00:00Z")).days.today).toBe("2026-07-02");
  });

  it("answers an earlier moment with its own day (a clock set back, a test)", () => {
    challengeToday(new Date("2026-03-30T12:00:00Z"));
    expect(challengeToday(new Date("2026-03-28T12:00:00Z")).days.today).toBe("2026-03-28");
    // The day the clocks go forward is 23 hours long.
    const short = challengeToday(new Date("2026-03-29T12:00:00Z"));
    expect(short.until - short.from).toBe(23 * 3_600_000);
  });
});
