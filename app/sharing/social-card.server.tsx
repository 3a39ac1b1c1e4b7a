// The social card (og:image): laid out by satori into an SVG and turned into a PNG by resvg, both in this process,
// without a browser. Rendered once per Brussels date and kept in memory: every other request is a lookup.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { owner, siteContent } from "~/content/site";
import { challengeToday } from "~/utils/today.server";
import {
  SOCIAL_CARD,
  type SocialCardText,
  socialCardAlt,
  socialCardText,
  socialCardUrl,
} from "~/sharing/social-card-text.server";

// Inter from the @fontsource/inter dependency (installed with the app, read from disk: no network at run time).
// WOFF, not WOFF2: satori cannot read WOFF2. The latin-ext files cover names such as "Łukasz" or "Dvořák".
const FONT_WEIGHTS = [400, 700, 800] as const;
const FONT_SUBSETS = ["latin", "latin-ext"] as const;

type Font = { name: string; data: Buffer; weight: (typeof FONT_WEIGHTS)[number]; style: "normal" };
let fonts: Promise<Font[]> | null = null;

function loadFonts(): Promise<Font[]> {
  fonts ??= (async () => {
    const require = createRequire(import.meta.url);
    const files = FONT_SUBSETS.flatMap((subset) => FONT_WEIGHTS.map((weight) => ({ subset, weight })));
    return Promise.all(
      files.map(async ({ subset, weight }) => ({
        // One family per subset: satori picks the first font of a family, and falls back to the next family only
        // for the characters it lacks.
        name: subset === "latin" ? "Inter" : "Inter Ext",
        data: await readFile(require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`)),
        weight,
        style: "normal" as const,
      })),
    );
  })().catch((error: unknown) => {
    // A later request tries again rather than failing for the life of the process.
    fonts = null;
    throw error;
  });
  return fonts;
}

// The site's palette (Tailwind's indigo and slate, as in the hero and the footer).
const COLOR = {
  indigo50: "#eef2ff",
  indigo700: "#4338ca",
  indigo800: "#3730a3",
  slate50: "#f8fafc",
  slate200: "#e2e8f0",
  slate600: "#475569",
  slate700: "#334155",
  slate900: "#0f172a",
  white: "#ffffff",
} as const;

function Card({ text }: { text: SocialCardText }) {
  return (
    <div
      style={{
        width: SOCIAL_CARD.width,
        height: SOCIAL_CARD.height,
        boxSizing: "border-box",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: "64px 72px",
        fontFamily: "Inter, 'Inter Ext'",
        color: COLOR.slate900,
        backgroundImage: `linear-gradient(180deg, ${COLOR.indigo50}, ${COLOR.slate50})`,
      }}
    >
      <div style={{ display: "flex", alignItems: "center" }}>
        <div
          style={{
            width: 72,
            height: 72,
            borderRadius: 16,
            backgroundColor: COLOR.indigo700,
            color: COLOR.white,
            fontSize: 32,
            fontWeight: 700,
            display: "flex",
            alignItems: "center",
            justifyContent: "center",
          }}
        >
          365
        </div>
        <div style={{ marginLeft: 24, fontSize: 30, color: COLOR.slate600 }}>{text.site}</div>
      </div>

      <div style={{ display: "flex", flexDirection: "column" }}>
        <div style={{ fontSize: 76, fontWeight: 800, letterSpacing: -2, lineHeight: 1.05 }}>{text.name}</div>
        <div style={{ marginTop: 20, fontSize: 40, fontWeight: 700, color: COLOR.indigo800 }}>{text.challenge}</div>
        <div style={{ marginTop: 8, fontSize: 30, color: COLOR.slate700 }}>{text.goal}</div>
      </div>

      <div style={{ display: "flex", flexDirection: "column" }}>
        <div style={{ display: "flex", alignItems: "baseline", justifyContent: "space-between" }}>
          <div style={{ fontSize: 64, fontWeight: 800 }}>{text.day}</div>
          <div style={{ fontSize: 32, fontWeight: 700, color: COLOR.slate700 }}>{text.progress}</div>
        </div>
        <div
          style={{
            marginTop: 20,
            height: 24,
            borderRadius: 12,
            backgroundColor: COLOR.slate200,
            display: "flex",
            overflow: "hidden",
          }}
        >
          <div style={{ width: `${text.barPercent}%`, height: "100%", backgroundColor: COLOR.indigo700 }} />
        </div>
      </div>
    </div>
  );
}

/** The card for `text` as a PNG of SOCIAL_CARD's size. No cache: see socialCardFor. */
export async function renderSocialCard(text: SocialCardText): Promise<Uint8Array<ArrayBuffer>> {
  // Loaded on the first render, not with the server: a process that never draws a card never holds them.
  const [{ default: satori }, { renderAsync }] = await Promise.all([import("satori"), import("@resvg/resvg-js")]);
  const svg = await satori(<Card text={text} />, {
    width: SOCIAL_CARD.width,
    height: SOCIAL_CARD.height,
    fonts: await loadFonts(),
  });
  // renderAsync runs on libuv's thread pool: the rasterising does not hold up other requests. Text is already paths
  // (satori draws the glyphs), so resvg needs no font of its own.
  const image = await renderAsync(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } });
  // Copied once per day into a plain ArrayBuffer, which a Response body takes as it is.
  return new Uint8Array(image.asPng());
}

export interface SocialCardMeta {
  url: string;
  type: string;
  width: number;
  height: number;
  alt: string;
}

/** What the page's meta says about today's card: cheap, nothing is rendered. */
export function socialCardMeta(now: Date): SocialCardMeta {
  const { days } = challengeToday(now);
  return {
    url: socialCardUrl(owner.siteUrl, days.today),
    type: SOCIAL_CARD.type,
    width: SOCIAL_CARD.width,
    height: SOCIAL_CARD.height,
    alt: socialCardAlt(socialCardText(days, siteContent)),
  };
}

export interface SocialCard {
  text: SocialCardText;
  png: Uint8Array<ArrayBuffer>;
  etag: string;
  /** The card's Brussels day, from its first instant (epoch ms) until the next day's. */
  from: number;
  until: number;
}

/** Today's card: the one in memory while the Brussels date is the same, else rendered (once, however many ask). */
let current: SocialCard | null = null;
let pending: { date: string; promise: Promise<SocialCard> } | null = null;

export function socialCardFor(now: Date): Promise<SocialCard> | SocialCard {
  const time = now.getTime();
  // The common case is one comparison: the date is not worked out again until the card's day ends.
  if (current && time >= current.from && time < current.until) return current;
  const today = challengeToday(now);
  const { days } = today;
  if (current?.text.date === days.today) return current;
  if (pending?.date === days.today) return pending.promise;

  const text = socialCardText(days, siteContent);
  const promise = (async () => {
    const png = await renderSocialCard(text);
    const card: SocialCard = {
      text,
      png,
      etag: `"${createHash("sha256").update(png).digest("base64url").slice(0, 27)}"`,
      from: today.from,
      until: today.until,
    };
    // Even when the date moved on while it rendered: the next request sees the card's day is over and renders anew.
    current = card;
    return card;
  })().finally(() => {
    if (pending?.promise === promise) pending = null;
  });
  pending = { date: days.today, promise };
  return promise;
}
