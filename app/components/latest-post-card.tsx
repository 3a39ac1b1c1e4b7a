import { ExternalLink } from "~/components/external-link";
import type { ExternalLink as Link } from "~/content/site";

const LABEL_ID = "latest-post-label";

/** The owner's latest post. The text is rendered as text (React escapes it), never as HTML. */
export function LatestPostCard({ text, profile }: { text: string; profile: Link }) {
  return (
    <section
      aria-labelledby={LABEL_ID}
      className="mt-8 w-full max-w-2xl rounded-2xl border border-edge-accent bg-surface p-6 text-left shadow-sm"
    >
      <h2 id={LABEL_ID} className="text-xs font-semibold uppercase tracking-wide text-link">
        Latest thought
      </h2>
      {/* pre-line keeps the post's own line breaks; break-words keeps a long URL inside the card. */}
      <p className="mt-2 line-clamp-6 whitespace-pre-line break-words text-ink-body">{text}</p>
      <ExternalLink
        href={profile.href}
        className="mt-1 inline-flex min-h-11 items-center text-sm font-semibold text-link underline-offset-4 hover:underline"
      >
        {`Follow on ${profile.label}`}
        <span aria-hidden="true">&nbsp;→</span>
      </ExternalLink>
    </section>
  );
}
