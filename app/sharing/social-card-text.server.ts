// What the social card says, apart from how it is drawn (app/sharing/social-card.server.tsx): the words and figures are a
// pure function of the day and the owner's content, so they can be checked without rendering a picture.

/** The card's route and size: the size is what `og:image:width` and `og:image:height` announce. */
export const SOCIAL_CARD = { path: "/card.png", width: 1200, height: 630, type: "image/png" } as const;

export interface SocialCardDays {
  /** The date the figures are for (Europe/Brussels), as YYYY-MM-DD. */
  today: string;
  daysIn: number;
  progressPercent: number;
  lengthInDays: number;
}

export interface SocialCardContent {
  owner: { name: string; siteUrl: string };
  heroCopy: { challengeTitle: string };
  challenge: { lengthInDays: number; targetProjects: number };
}

export interface SocialCardText {
  date: string;
  name: string;
  challenge: string;
  goal: string;
  /** "Day N of 365": the footer's words. */
  day: string;
  /** "Challenge Progress: N%": the footer's words, the figure not capped (the page does not cap it either). */
  progress: string;
  /** How much of the bar is filled, 0 to 100, like the footer's progress bar. */
  barPercent: number;
  /** Where the card leads: the site's host. */
  site: string;
}

export function socialCardText(days: SocialCardDays, content: SocialCardContent): SocialCardText {
  return {
    date: days.today,
    name: content.owner.name,
    challenge: content.heroCopy.challengeTitle,
    goal: `Goal: at least ${content.challenge.targetProjects} projects in ${content.challenge.lengthInDays} days.`,
    day: `Day ${days.daysIn} of ${days.lengthInDays}`,
    progress: `Challenge Progress: ${days.progressPercent}%`,
    barPercent: Math.min(100, Math.max(0, days.progressPercent)),
    site: new URL(content.owner.siteUrl).host,
  };
}

/** The card's text alternative (`og:image:alt`): everything it says, in one sentence. */
export function socialCardAlt(text: SocialCardText): string {
  return `${text.name}, ${text.challenge}: ${text.day}, ${text.progress}.`;
}

/**
 * The card's absolute address on the owner's site. The date in the query gives each day its own URL: networks that
 * keep a fetched image for weeks (by URL) fetch the new day's card when the page is shared again. The route answers
 * every query with today's card.
 */
export function socialCardUrl(siteUrl: string, date: string): string {
  return new URL(`${SOCIAL_CARD.path}?d=${encodeURIComponent(date)}`, siteUrl).toString();
}
