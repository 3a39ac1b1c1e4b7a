import { describe, expect, it } from "vitest";
import { fillIn } from "~/components/fill-in";
import { footerCopy, heroCopy } from "~/content/site";

describe("fillIn", () => {
  it("puts the values in their places, as the page showed them before they moved to site.ts", () => {
    expect(fillIn(heroCopy.goal, { projects: 12, days: 365 })).toBe("Goal: at least 12 projects in 365 days.");
    expect(fillIn(footerCopy.day, { day: 428, days: 365 })).toBe("Day 428 of 365");
    expect(fillIn(footerCopy.progress, { percent: 17 })).toBe("Challenge Progress: 17%");
    expect(fillIn(heroCopy.basedIn, { country: "Belgium" })).toBe("Based in Belgium");
  });

  it("leaves a place without a value, and text without places, as they are", () => {
    expect(fillIn("Day {day} of {days}", { day: 3 })).toBe("Day 3 of {days}");
    expect(fillIn("{constructor} {toString}", {})).toBe("{constructor} {toString}");
    expect(fillIn("No places", { day: 1 })).toBe("No places");
  });
});
