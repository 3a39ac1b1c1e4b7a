import { ExternalLink } from "~/components/external-link";
import type { SiteContent } from "~/content/site";

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
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-3">
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-slate-900">Mission</h2>
          <p className="mt-3 text-sm text-slate-700">{footerCopy.mission}</p>
        </div>
        <nav aria-labelledby="connect-title">
          <h2 id="connect-title" className="text-sm font-bold uppercase tracking-wide text-slate-900">
            Connect
          </h2>
          <ul className="mt-3 space-y-1 text-sm">
            {connect.map((link) => (
              <li key={link.href}>
                <ExternalLink
                  href={link.href}
                  className="inline-block py-1 text-indigo-800 underline-offset-4 hover:underline"
                >
                  {link.label}
                </ExternalLink>
              </li>
            ))}
            <li>
              <a
                href={`mailto:${owner.email}`}
                className="inline-block py-1 text-indigo-800 underline-offset-4 hover:underline"
              >
                {owner.email}
              </a>
            </li>
          </ul>
        </nav>
        <div>
          <h2 className="text-sm font-bold uppercase tracking-wide text-slate-900">Progress</h2>
          <p className="mt-3 text-sm font-semibold text-slate-900">
            Day {daysIn} of {lengthInDays}
          </p>
          <p className="mt-1 text-sm text-slate-700">Challenge Progress: {progressPercent}%</p>
          <div
            className="mt-3 h-2 overflow-hidden rounded-full bg-slate-200"
            role="progressbar"
            aria-label="Challenge progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.min(progressPercent, 100)}
          >
            {/* An SVG width, not a style attribute: the CSP allows no inline styles. */}
            <svg className="block h-full w-full" viewBox="0 0 100 2" preserveAspectRatio="none" aria-hidden="true">
              <rect width={Math.min(progressPercent, 100)} height="2" rx="1" className="fill-indigo-700" />
            </svg>
          </div>
        </div>
      </div>
      <p className="border-t border-slate-100 py-6 text-center text-xs text-slate-600">
        © {year} {owner.name}. All rights reserved.
      </p>
    </footer>
  );
}
