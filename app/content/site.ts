/**
 * Everything the owner says on the site lives here: their words, their links and their projects.
 * Replace every value marked PLACEHOLDER with your own before you deploy.
 */

export type ProjectStatus = "building" | "launched" | "sold" | "idea" | (string & {});

export interface Project {
  title: string;
  description: string;
  status: ProjectStatus;
  /** Shown as "<revenue>/mo", e.g. "€120". */
  revenue?: string;
  /** Free text: a month and year such as "Sep '25", or "TBD". */
  launchDate: string;
  url?: string;
  /** An emoji. */
  logo: string;
  techStack: string[];
}

export interface ExternalLink {
  label: string;
  href: string;
}

export const owner = {
  // PLACEHOLDER: your name, tagline, photo and e-mail.
  name: "Alex Placeholder",
  tagline: "Indie maker shipping small software, one project at a time",
  photo: {
    src: "/owner.webp",
    width: 160,
    height: 160,
    alt: "Portrait of Alex Placeholder",
  },
  countryFlag: "🇧🇪",
  countryName: "Belgium",
  email: "hello@example.com",
  siteUrl: "https://example.com",
} as const;

export const links = {
  // PLACEHOLDER: your profiles.
  social: { label: "X", href: "https://x.com/your-handle" },
  code: { label: "GitHub", href: "https://github.com/your-handle" },
  professional: { label: "LinkedIn", href: "https://www.linkedin.com/in/your-handle" },
} as const satisfies Record<string, ExternalLink>;

export const meta = {
  title: `${owner.name} · 365-Day Challenge: 12 projects in 365 days`,
  description: `${owner.name} is building at least 12 small software projects in 365 days: launching them, testing them with real users and hopefully selling them. Follow the journey.`,
} as const;

export const challenge = {
  /**
   * PLACEHOLDER: the first day of YOUR challenge (YYYY-MM-DD, a date in Europe/Brussels). The day counter, the days
   * left and the progress bar count from it: left as it is, the site counts from the example's start and shows days
   * past the end, such as "Day 428 of 365".
   */
  startDate: "2025-09-25",
  timeZone: "Europe/Brussels",
  lengthInDays: 365,
  targetProjects: 12,
} as const;

export const heroCopy = {
  challengeTitle: "The 365-Day Challenge",
  challengeText:
    "I'm building at least 12 projects in 365 days: small tools that solve real problems. I launch each one, test it with real users and, with a bit of luck, sell a few. Everything happens in public, so follow along.",
  location: "Living the dream in Belgium",
  /** The flag's label for screen readers: `{country}` becomes owner.countryName. */
  basedIn: "Based in {country}",
  /** `{projects}` and `{days}` become the challenge's target and length. */
  goal: "Goal: at least {projects} projects in {days} days.",
  getUpdates: "Get Updates",
  connect: "Let's Connect",
  daysIn: "Days In",
  daysLeft: "Days Left",
} as const;

/** The hero's tiles beside the day count: PLACEHOLDER numbers, updated by hand as the challenge goes. */
export const heroStats = [
  { label: "Projects Built", value: "0" },
  { label: "Launched", value: "0" },
] as const;

export const showcaseCopy = {
  title: "My Vibe Code Projects",
  launch: "Launch:",
  revenue: "Revenue",
  /** After a project's revenue: "€120/mo". */
  perMonth: "/mo",
  visit: "Visit",
  /** A project's list of technologies, for screen readers: `{project}` becomes its title. */
  techStack: "{project} tech stack",
} as const;

export const footerCopy = {
  missionTitle: "Mission",
  mission:
    "On a mission to build, launch and learn in public: twelve or more projects in a year, shipped one small step at a time.",
  connectTitle: "Connect",
  updates: "Updates",
  progressTitle: "Progress",
  /** `{day}` and `{days}`: the challenge's day today and its length. */
  day: "Day {day} of {days}",
  /** `{percent}`: how much of the challenge has passed. */
  progress: "Challenge Progress: {percent}%",
  progressLabel: "Challenge progress",
  /** After "© <year> <name>." */
  rights: "All rights reserved.",
} as const;

/** The newsletter dialog's words: they reach the dialog's chunk through the root's loader data (app/root.tsx). */
export const newsletterCopy = {
  title: "Get Updates on My Journey",
  text: "Be the first to hear when a new project launches, what I learned building it, and how the challenge is going.",
  emailLabel: "Email address",
  emailPlaceholder: "Enter your email address",
  submit: "Get Early Access",
  busy: "Subscribing...",
  footnote: "Join the journey • No spam • Unsubscribe anytime",
  close: "Close",
} as const;

export type NewsletterCopy = { readonly [Key in keyof typeof newsletterCopy]: string };

/** The updates pages' words (/updates and each update's page); they reach the pages through loader data. */
export const updatesCopy = {
  /** `{name}` becomes owner.name. */
  listTitle: "Updates · {name}",
  listDescription: "Every update of {name}'s 365-day challenge, newest first: what 'Get Updates' brings by mail.",
  /** An update's description when its front matter has no summary: `{date}` in words, `{day}` of the challenge. */
  updateDescription: "{name}'s update of {date}, day {day} of the challenge.",
  heading: "Updates",
  intro: "What I send to readers who clicked ‘Get Updates’.",
  empty: "The first update is on its way.",
  day: "Day", // after an update's date: "20 October 2025 · Day 25"
  allUpdates: "All updates",
  signUpTitle: "Every update, by mail",
  signUpText: "Get the next one in your inbox, the day it is written.",
  getUpdates: "Get Updates",
  rights: "All rights reserved.", // after "© <year> <name>."
  home: "Home",
  updates: "Updates",
  feed: "Atom feed",
} as const;

export type UpdatesCopy = { readonly [Key in keyof typeof updatesCopy]: string };

/** The card of the owner's latest post on the home page. `{source}`: Bluesky, Mastodon, X; `{profile}`: its label. */
export const latestPostCopy = {
  heading: "Latest thought",
  on: "On {source}",
  readPost: "Read the post",
  readPostOn: "Read the post on {source}",
  follow: "Follow on {profile}",
} as const;

/** The confirm page (/confirm, the link of the confirmation mail): its words, then a heading and a text per answer. */
export const confirmCopy = {
  page: {
    title: "Confirm your subscription",
    text: "One last step: press 'Confirm' to get updates on my 365-day challenge.",
    button: "Confirm",
    busy: "Confirming...",
    latestUpdates: "Read the latest updates",
  },
  answers: {
    confirmed: {
      title: "You're subscribed",
      text: "Thanks for confirming! You're on the list: you'll get updates on my 365-day challenge. Every mail has a link to unsubscribe.",
    },
    "already-confirmed": {
      title: "You're already on the list",
      text: "This link was used already: you confirmed, and you're on the list. Nothing more to do.",
    },
    expired: {
      title: "Confirm",
      text: "This link has expired or was already used. You can sign up again on the home page.",
    },
    "incomplete-link": {
      title: "Confirm",
      text: "This confirmation link is incomplete. Please use the whole link from the e-mail you received.",
    },
    "too-many-requests": { title: "Confirm", text: "Too many requests. Please try again in a minute." },
    failed: { title: "Confirm", text: "Something went wrong. Please try again later." },
  },
} as const;

/** The unsubscribe page (/unsubscribe, the link in every mail to a reader). */
export const unsubscribeCopy = {
  page: {
    title: "Unsubscribe",
    text: "Stop getting updates on my 365-day challenge? One click and you are off the list.",
    button: "Unsubscribe",
    busy: "Unsubscribing...",
  },
  answers: {
    unsubscribed: {
      title: "You're unsubscribed",
      text: "You won't get any more updates from me. Changed your mind? You can sign up again on the home page.",
    },
    "incomplete-link": {
      title: "Unsubscribe",
      text: "This unsubscribe link is incomplete. Please use the whole link from the e-mail you received.",
    },
    "too-many-requests": { title: "Unsubscribe", text: "Too many requests. Please try again in a minute." },
    failed: { title: "Unsubscribe", text: "Something went wrong. Please try again later." },
  },
} as const;

/** The numbers of the summary strip under the projects, fixed by hand. */
export const projectSummary = [
  { label: "Projects Started", value: "1" },
  { label: "Launched", value: "0" },
  { label: "Monthly Revenue", value: "€0" },
  { label: "To Go", value: "11" },
] as const;

export const projects: Project[] = [
  {
    title: "SubTrackr",
    description:
      "Find every subscription quietly draining your bank account, see what it costs you a year, and cancel the ones you forgot about.",
    status: "building",
    launchDate: "Sep '25",
    // PLACEHOLDER: the project's real address.
    url: "https://subtrackr.example.com",
    logo: "💳",
    techStack: ["React", "Supabase", "Stripe", "Tailwind"],
  },
  {
    title: "Mystery Project #2",
    description: 'Currently a sticky note that says "this could be big". The sticky note is also losing its stick.',
    status: "idea",
    launchDate: "TBD",
    logo: "🔮",
    techStack: ["Coffee", "Hope"],
  },
  {
    title: "Mystery Project #3",
    description: "Somewhere between a brilliant idea and a shower thought. Waiting for the water to warm up.",
    status: "idea",
    launchDate: "TBD",
    logo: "🚿",
    techStack: ["Whiteboard", "Optimism"],
  },
  {
    title: "Mystery Project #4",
    description:
      "Will definitely use AI. Nobody knows what for yet, least of all me. The domain name is already bought, though.",
    status: "idea",
    launchDate: "TBD",
    logo: "🤖",
    techStack: ["Buzzwords", "Domain names"],
  },
  {
    title: "Mystery Project #5",
    description: "A to-do app for people who never finish their to-do apps. Ironically still on my to-do list.",
    status: "idea",
    launchDate: "TBD",
    logo: "📝",
    techStack: ["Procrastination", "Lists"],
  },
  {
    title: "Mystery Project #6",
    description: "Reserved for the idea I'll have at 2 a.m. three months from now. Its spot in the grid is saved.",
    status: "idea",
    launchDate: "TBD",
    logo: "🌙",
    techStack: ["Insomnia", "Espresso"],
  },
];

/**
 * What the pages show besides the projects. It reaches the components through loader data rather than imports, so
 * the browser gets it with the page (as data for hydration) and editing it never changes the JavaScript bundles.
 */
export const siteContent = {
  owner,
  links,
  heroCopy,
  heroStats,
  showcaseCopy,
  footerCopy,
  projectSummary,
  challenge: { lengthInDays: challenge.lengthInDays, targetProjects: challenge.targetProjects },
};

export type SiteContent = typeof siteContent;

/** The document's title and social preview, for the root route's meta (the preview's picture is the social card). */
export const documentMeta = {
  title: meta.title,
  description: meta.description,
  url: owner.siteUrl,
};
