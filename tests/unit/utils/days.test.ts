import { describe, expect, it } from "vitest";
import { challengeDays, nextMidnight } from "~/utils/days.server";

const settings = { startDate: "2025-09-25", timeZone: "Europe/Brussels", lengthInDays: 365 };
const at = (iso: string) => challengeDays(new Date(iso), settings);

describe("challengeDays", () => {
  it("is 0 days in, 365 left, before the start", () => {
    expect(at("2025-09-23T12:00:00Z")).toMatchObject({
      today: "2025-09-23",
      daysIn: 0,
      daysLeft: 365,
      progressPercent: 0,
    });
  });

  it("is still the day before the start at 21:59 UTC (23:59 in Brussels, summer time)", () => {
    expect(at("2025-09-24T21:59:59Z")).toMatchObject({ today: "2025-09-24", daysIn: 0, daysLeft: 365 });
  });

  it("starts at midnight Brussels on the start day, which is 22:00 UTC in summer", () => {
    expect(at("2025-09-24T22:00:00Z")).toMatchObject({
      today: "2025-09-25",
      daysIn: 0,
      daysLeft: 365,
      progressPercent: 0,
    });
    expect(at("2025-09-25T22:00:00Z")).toMatchObject({ today: "2025-09-26", daysIn: 1, daysLeft: 364 });
  });

  it("follows the change from CEST to CET (26 October 2025): midnight is 23:00 UTC afterwards", () => {
    // 2025-10-26 is day 31. Before the change midnight was 22:00 UTC; after it, 23:00 UTC.
    expect(at("2025-10-25T22:00:00Z")).toMatchObject({ today: "2025-10-26", daysIn: 31 });
    expect(at("2025-10-26T22:30:00Z")).toMatchObject({ today: "2025-10-26", daysIn: 31 });
    expect(at("2025-10-26T23:00:00Z")).toMatchObject({ today: "2025-10-27", daysIn: 32 });
  });

  it("follows the change from CET back to CEST (29 March 2026)", () => {
    // 2026-03-29 is day 185; midnight is 23:00 UTC on the 28th, 22:00 UTC on the 29th.
    expect(at("2026-03-28T22:59:59Z")).toMatchObject({ today: "2026-03-28", daysIn: 184 });
    expect(at("2026-03-28T23:00:00Z")).toMatchObject({ today: "2026-03-29", daysIn: 185 });
    expect(at("2026-03-29T22:00:00Z")).toMatchObject({ today: "2026-03-30", daysIn: 186 });
  });

  it("reaches day 365 with nothing left and 100%", () => {
    expect(at("2026-09-25T10:00:00Z")).toMatchObject({
      today: "2026-09-25",
      daysIn: 365,
      daysLeft: 0,
      progressPercent: 100,
    });
  });

  it("keeps counting past the end, with days left at 0 and progress above 100%", () => {
    expect(at("2026-11-21T12:00:00Z")).toMatchObject({
      today: "2026-11-21",
      daysIn: 422,
      daysLeft: 0,
      progressPercent: 116,
    });
  });

  it("rounds the progress to the nearest whole percent", () => {
    // 2 / 365 = 0.55% -> 1%; 1 / 365 = 0.27% -> 0%
    expect(at("2025-09-27T12:00:00Z").progressPercent).toBe(1);
    expect(at("2025-09-26T12:00:00Z").progressPercent).toBe(0);
  });
});

describe("nextMidnight", () => {
  it("is the next midnight in Brussels, in summer and in winter", () => {
    expect(nextMidnight(new Date("2025-09-25T10:00:00Z"), "Europe/Brussels").toISOString()).toBe(
      "2025-09-25T22:00:00.000Z",
    );
    expect(nextMidnight(new Date("2025-12-01T10:00:00Z"), "Europe/Brussels").toISOString()).toBe(
      "2025-12-01T23:00:00.000Z",
    );
  });
});
