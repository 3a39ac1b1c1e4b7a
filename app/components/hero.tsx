import type { ReactNode } from "react";
import { ExternalLink } from "~/components/external-link";
import type { GetUpdatesButtonProps } from "~/components/sign-up";
import { StatTile } from "~/components/stat-tile";
import type { SiteContent } from "~/content/site";
import { fillIn } from "~/components/fill-in";

export interface HeroProps {
  content: Pick<SiteContent, "owner" | "links" | "heroCopy" | "heroStats" | "challenge">;
  daysIn: number;
  daysLeft: number;
  /** The latest-post card, when there is a post to show. */
  latestPost?: ReactNode;
  /** 'Get Updates': the newsletter dialog's popover invoker without JavaScript, its modal's opener with it. */
  getUpdates: GetUpdatesButtonProps;
}

export function Hero({
  content: { owner, links, heroCopy, heroStats, challenge },
  daysIn,
  daysLeft,
  latestPost,
  getUpdates,
}: HeroProps) {
  return (
    <section aria-labelledby="hero-title" className="bg-gradient-to-b from-page-glow to-page">
      <div className="mx-auto flex max-w-4xl flex-col items-center px-4 pb-12 pt-14 text-center sm:px-6">
        <div className="relative">
          <img
            src={owner.photo.src}
            width={owner.photo.width}
            height={owner.photo.height}
            alt={owner.photo.alt}
            fetchpriority="high"
            decoding="async"
            className="h-32 w-32 rounded-full border-4 border-frame object-cover shadow-lg sm:h-40 sm:w-40"
          />
          <span
            role="img"
            aria-label={fillIn(heroCopy.basedIn, { country: owner.countryName })}
            className="absolute bottom-1 right-1 flex h-10 w-10 items-center justify-center rounded-full border-2 border-frame bg-frame text-2xl shadow"
          >
            {owner.countryFlag}
          </span>
        </div>

        <h1 id="hero-title" className="mt-6 text-4xl font-extrabold tracking-tight text-ink sm:text-5xl">
          {owner.name}
        </h1>
        <p className="mt-3 max-w-2xl text-lg text-ink-soft">{owner.tagline}</p>

        <dl className="mt-8 grid w-full max-w-2xl grid-cols-2 gap-3 sm:grid-cols-4">
          <StatTile label={heroCopy.daysIn} value={daysIn} />
          <StatTile label={heroCopy.daysLeft} value={daysLeft} />
          {heroStats.map((stat) => (
            <StatTile key={stat.label} label={stat.label} value={stat.value} />
          ))}
        </dl>

        {latestPost}

        {/* Every block in this centred column has a width of its own, not its content's: a first paint made while the
            document is still arriving (a slow phone) shows it where it stays, so nothing shifts when the rest comes. */}
        <div className="mt-8 w-full max-w-2xl rounded-2xl border border-edge-accent bg-surface p-6 text-left shadow-sm">
          <h2 className="text-xl font-bold text-ink">{heroCopy.challengeTitle}</h2>
          <p className="mt-2 text-ink-soft">{heroCopy.challengeText}</p>
          <p className="mt-2 text-sm font-medium text-link">
            {fillIn(heroCopy.goal, { projects: challenge.targetProjects, days: challenge.lengthInDays })}
          </p>
        </div>

        <div className="mt-8 grid w-full max-w-xs gap-3 sm:max-w-md sm:grid-cols-2">
          <button type="button" {...getUpdates} className="btn-accent w-full">
            {heroCopy.getUpdates}
          </button>
          <ExternalLink
            href={links.professional.href}
            className="inline-flex min-h-11 w-full items-center justify-center rounded-full border border-edge-strong bg-surface px-6 py-3 font-semibold text-ink shadow-sm transition hover:border-edge-control"
          >
            {heroCopy.connect}
          </ExternalLink>
        </div>

        <p className="mt-6 text-sm text-ink-muted">{heroCopy.location}</p>
      </div>
    </section>
  );
}
