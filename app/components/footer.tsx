import { ExternalLink } from "~/components/external-link";
import type { SiteContent } from "~/content/site";
import { fillIn } from "~/components/fill-in";

export interface FooterProps {
  content: Pick<SiteContent, "owner" | "links" | "footerCopy">;
  daysIn: number;
  progressPercent: number;
  lengthInDays: number;
  year: number;
}

export function Footer({
  content: { owner, links, footerCopy },
  daysIn,
  progressPercent,
  lengthInDays,
  year,
}: FooterProps) {
  const connect = [links.social, links.code, links.professional];
  return (
    <footer className="border-t border-edge bg-surface">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-3">
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-ink">{footerCopy.missionTitle}</h2>
          <p className="mt-3 text-sm text-ink-soft">{footerCopy.mission}</p>
        </div>
        <nav aria-labelledby="connect-title">
          <h2 id="connect-title" className="text-sm font-bold uppercase tracking-wide text-ink">
            {footerCopy.connectTitle}
          </h2>
          <ul className="mt-3 space-y-1 text-sm">
            {connect.map((link) => (
              <li key={link.href}>
                <ExternalLink
                  href={link.href}
                  className="inline-block py-1 text-link underline-offset-4 hover:underline"
                >
                  {link.label}
                </ExternalLink>
              </li>
            ))}
            <li>
              <a
                href={`mailto:${owner.email}`}
                className="inline-block py-1 text-link underline-offset-4 hover:underline"
              >
                {owner.email}
              </a>
            </li>
            <li>
              {/* A plain link: the updates are whole pages, and the home page then loads nothing more for it. */}
              <a href="/updates" className="inline-block py-1 text-link underline-offset-4 hover:underline">
                {footerCopy.updates}
              </a>
            </li>
          </ul>
        </nav>
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-ink">{footerCopy.progressTitle}</h2>
          <p className="mt-3 text-sm font-semibold text-ink">
            {fillIn(footerCopy.day, { day: daysIn, days: lengthInDays })}
          </p>
          <p className="mt-1 text-sm text-ink-soft">{fillIn(footerCopy.progress, { percent: progressPercent })}</p>
          <div
            className="mt-3 h-2 overflow-hidden rounded-full bg-track"
            role="progressbar"
            aria-label={footerCopy.progressLabel}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.min(progressPercent, 100)}
          >
            {/* An SVG width, not a style attribute: the CSP allows no inline styles. */}
            <svg className="block h-full w-full" viewBox="0 0 100 2" preserveAspectRatio="none" aria-hidden="true">
              <rect width={Math.min(progressPercent, 100)} height="2" rx="1" className="fill-progress" />
            </svg>
          </div>
        </div>
      </div>
      <p className="border-t border-edge-faint py-6 text-center text-xs text-ink-muted">
        © {year} {owner.name}. {footerCopy.rights}
      </p>
    </footer>
  );
}
