import { describe, expect, it } from "vitest";
import { challenge } from "~/content/site";
import { challengeDays } from "~/utils/days.server";
import { challengeDayOn, dateInWords, listItem, startOfDay, writtenAt } from "~/updates/update-view.server";

describe("an update's date", () => {
  it("in words", () => {
    expect(dateInWords("2025-10-01")).toBe("1 October 2025");
    expect(dateInWords("2026-02-28")).toBe("28 February 2026");
  });

  it("is Day N as the footer counts it on that Brussels day", () => {
    for (const date of ["2025-09-25", "2025-10-01", "2026-03-29", "2026-09-24", "2027-01-01"]) {
      // Noon in Brussels on that date, whatever the season.
      const noon = new Date(`${date}T10:00:00Z`);
      expect(challengeDayOn(date), date).toBe(challengeDays(noon, challenge).daysIn);
    }
    expect(challengeDayOn("2025-09-25")).toBe(0);
    expect(challengeDayOn("2025-10-01")).toBe(6);
    expect(challengeDayOn("2025-01-01")).toBe(0);
  });

  it("starts at midnight in Brussels, summer or winter time", () => {
    expect(startOfDay("2025-10-01")).toBe("2025-09-30T22:00:00Z");
    expect(startOfDay("2025-12-01")).toBe("2025-11-30T23:00:00Z");
    // The day summer time ends: midnight is still UTC+2.
    expect(startOfDay("2025-10-26")).toBe("2025-10-25T22:00:00Z");
  });

  it("is written at its time: in Brussels, or at the start of the day without one", () => {
    expect(writtenAt({ date: "2025-10-01", time: "18:30" })).toBe("2025-10-01T16:30:00Z");
    expect(writtenAt({ date: "2025-12-01", time: "00:05" })).toBe("2025-11-30T23:05:00Z");
    expect(writtenAt({ date: "2025-12-01" })).toBe("2025-11-30T23:00:00Z");
    // 02:30 does not exist on the night the clocks go forward: an hour later, never an error.
    expect(writtenAt({ date: "2026-03-29", time: "02:30" })).toBe("2026-03-29T01:30:00Z");
  });

  it("makes a list item with its path", () => {
    const item = listItem({
      name: "2025-10-15-first-users",
      date: "2025-10-15",
      title: "T",
      draft: false,
      markdown: "",
    });
    expect(item).toEqual({
      name: "2025-10-15-first-users",
      title: "T",
      summary: null,
      date: "2025-10-15",
      dateText: "15 October 2025",
      day: 20,
      path: "/updates/2025-10-15-first-users",
    });
  });
});
