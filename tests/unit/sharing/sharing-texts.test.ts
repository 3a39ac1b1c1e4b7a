// What app/sharing says about the page (the social card's text, the structured data), computed without a server;
// tests/integration/sharing/social-card.test.ts renders the card and serves it all over HTTP.
import { describe, expect, it } from "vitest";
import { challenge, siteContent } from "~/content/site";
import { challengeDays } from "~/utils/days.server";
import { SOCIAL_CARD, socialCardAlt, socialCardText, socialCardUrl } from "~/sharing/social-card-text.server";
import { jsonForScript, profilePage } from "~/sharing/structured-data.server";

const textAt = (iso: string) => socialCardText(challengeDays(new Date(iso), challenge), siteContent);

describe("the social card's text", () => {
  it("says the day of the challenge for the Brussels date, not the UTC one", () => {
    // 23:30 UTC on 3 October is already 4 October in Brussels (summer time): day 9.
    const autumn = textAt("2025-10-03T23:30:00Z");
    expect(autumn.date).toBe("2025-10-04");
    expect(autumn.day).toBe("Day 9 of 365");
    expect(autumn.progress).toBe("Challenge Progress: 2%");
    expect(autumn.barPercent).toBe(2);
    // Noon on 14 February: day 142, 39%.
    const winter = textAt("2026-02-14T12:00:00Z");
    expect(winter.day).toBe("Day 142 of 365");
    expect(winter.progress).toBe("Challenge Progress: 39%");
  });

  it("names the owner, the challenge and its goal, and the site it leads to", () => {
    const text = textAt("2026-02-14T12:00:00Z");
    expect(text.name).toBe(siteContent.owner.name);
    expect(text.challenge).toBe("The 365-Day Challenge");
    expect(text.goal).toBe("Goal: at least 12 projects in 365 days.");
    expect(text.site).toBe(new URL(siteContent.owner.siteUrl).host);
  });

  it("keeps the page's figure past the end, with the bar full, and an empty bar before the start", () => {
    const after = socialCardText(
      { today: "2026-11-23", daysIn: 424, progressPercent: 116, lengthInDays: 365 },
      siteContent,
    );
    expect(after.day).toBe("Day 424 of 365");
    expect(after.progress).toBe("Challenge Progress: 116%");
    expect(after.barPercent).toBe(100);
    expect(textAt("2025-01-01T12:00:00Z")).toMatchObject({ day: "Day 0 of 365", barPercent: 0 });
  });

  it("has a text alternative that says all of it, and a URL of its own per day on the owner's site", () => {
    const text = textAt("2026-02-14T12:00:00Z");
    expect(socialCardAlt(text)).toBe(
      `${siteContent.owner.name}, The 365-Day Challenge: Day 142 of 365, Challenge Progress: 39%.`,
    );
    expect(socialCardUrl("https://alex.example", "2026-02-14")).toBe("https://alex.example/card.png?d=2026-02-14");
    expect(SOCIAL_CARD).toMatchObject({ width: 1200, height: 630 });
  });
});

describe("structured data", () => {
  it("describes the owner as the ProfilePage's Person, with their profiles", () => {
    const data = profilePage(siteContent);
    expect(data).toEqual({
      "@context": "https://schema.org",
      "@type": "ProfilePage",
      url: "https://example.com/",
      mainEntity: {
        "@type": "Person",
        name: siteContent.owner.name,
        description: siteContent.owner.tagline,
        url: "https://example.com/",
        image: "https://example.com/owner.webp",
        sameAs: [siteContent.links.social.href, siteContent.links.code.href, siteContent.links.professional.href],
      },
    });
  });

  it("is serialized so that no value can end the script element, and parses back to the same data", () => {
    const hostile = { name: "</script><script>alert(1)</script> & <!-- \u2028" };
    const text = jsonForScript(hostile);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(hostile);
  });
});
