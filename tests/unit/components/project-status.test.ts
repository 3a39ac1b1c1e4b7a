import { describe, expect, it } from "vitest";
import { statusStyle } from "~/components/project-status";

describe("statusStyle", () => {
  it.each([
    ["building", "Building", "🔨", "amber"],
    ["launched", "Launched", "🚀", "green"],
    ["sold", "Sold", "💰", "purple"],
    ["idea", "Idea", "💡", "blue"],
  ])("%s has label %s, icon %s and a %s badge", (status, label, icon, colour) => {
    const style = statusStyle(status);
    expect(style.label).toBe(label);
    expect(style.icon).toBe(icon);
    expect(style.className).toContain(`bg-badge-${colour}`);
  });

  it("gives any other status a neutral badge with a memo and a capitalised label", () => {
    expect(statusStyle("paused")).toEqual({
      label: "Paused",
      icon: "📝",
      className: expect.stringContaining("bg-badge-neutral"),
    });
    expect(statusStyle("toString").icon).toBe("📝");
  });
});
