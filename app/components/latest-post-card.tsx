import type { LatestPostBody } from "../../supabase/functions/_shared/latest-post/post.ts";
import { ExternalLink } from "~/components/external-link";
import { fillIn } from "~/components/fill-in";
import type { ExternalLink as Link, latestPostCopy } from "~/content/site";

const LABEL_ID = "latest-post-label";
const LINK_CLASS =
  "inline-flex min-h-11 items-center text-sm font-semibold text-link underline-offset-4 hover:underline";

/**
 * The owner's latest post. The text is rendered as text (React escapes it), never as HTML; the link to the post is
 * only ever an http(s) address (checked where the post is shaped). Its words are the owner's (latestPostCopy).
 */
export function LatestPostCard({
  post,
  profile,
  copy,
}: {
  post: LatestPostBody;
  profile: Link;
  copy: { readonly [Key in keyof typeof latestPostCopy]: string };
}) {
  return (
    <section
      aria-labelledby={LABEL_ID}
      className="mt-8 w-full max-w-2xl rounded-2xl border border-edge-accent bg-surface p-6 text-left shadow-sm"
    >
      <h2 id={LABEL_ID} className="text-xs font-semibold uppercase tracking-wide text-link">
        {copy.heading}
      </h2>
      {post.source ? <p className="mt-1 text-xs text-ink-muted">{fillIn(copy.on, { source: post.source })}</p> : null}
      {/* pre-line keeps the post's own line breaks; break-words keeps a long URL inside the card. The clamp leaves
          room for a whole post (Bluesky 300 graphemes, Mastodon usually 500) even on a narrow phone. */}
      <p className="mt-2 line-clamp-20 whitespace-pre-line break-words text-ink-body">{post.text}</p>
      <div className="mt-1 flex flex-wrap gap-x-6">
        {post.url ? (
          <ExternalLink href={post.url} className={LINK_CLASS}>
            {post.source ? fillIn(copy.readPostOn, { source: post.source }) : copy.readPost}
            <span aria-hidden="true">&nbsp;→</span>
          </ExternalLink>
        ) : null}
        <ExternalLink href={profile.href} className={LINK_CLASS}>
          {fillIn(copy.follow, { profile: profile.label })}
          <span aria-hidden="true">&nbsp;→</span>
        </ExternalLink>
      </div>
    </section>
  );
}
