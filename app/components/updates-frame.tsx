import { useOutletContext } from "@remix-run/react";
import type { ReactNode } from "react";
import type { SignUpOutlet } from "~/components/sign-up";
import { FEED_PATH } from "~/updates/feed/path";
import type { FrameProps } from "~/updates/frame-props";

/**
 * What every updates page shows around its own content: the way home, the sign-up and a short footer. Not the home
 * page's footer: sharing its module would add a chunk to the home page's JavaScript (decision 016).
 */
export function UpdatesFrame({ children, frame }: { children: ReactNode; frame: FrameProps }) {
  const signUp = useOutletContext<SignUpOutlet>();
  const { copy } = frame;
  return (
    <>
      <header className="mx-auto max-w-3xl px-4 pt-8 sm:px-6">
        {/* Plain links between the pages: a whole page each, complete without JavaScript, and no route discovery. */}
        <a href="/" className="inline-block py-2 text-sm font-semibold text-link underline-offset-4 hover:underline">
          {frame.ownerName}
        </a>
      </header>
      <main className="mx-auto max-w-3xl px-4 pb-16 sm:px-6">
        {children}
        <aside
          aria-labelledby="get-updates-title"
          className="mt-14 rounded-2xl border border-edge-accent bg-surface p-6"
        >
          <h2 id="get-updates-title" className="text-lg font-bold text-ink">
            {copy.signUpTitle}
          </h2>
          <p className="mt-2 text-ink-soft">{copy.signUpText}</p>
          <button type="button" {...signUp.getUpdates} className="btn-accent mt-4">
            {copy.getUpdates}
          </button>
        </aside>
      </main>
      {signUp.dialog}
      <footer className="border-t border-edge bg-surface">
        <div className="mx-auto flex max-w-3xl flex-wrap items-center justify-between gap-4 px-4 py-8 text-sm sm:px-6">
          <p className="text-ink-muted">
            © {frame.year} {frame.ownerName}. {copy.rights}
          </p>
          <ul className="flex gap-6">
            <li>
              <a href="/" className="inline-block py-1 text-link underline-offset-4 hover:underline">
                {copy.home}
              </a>
            </li>
            <li>
              <a href="/updates" className="inline-block py-1 text-link underline-offset-4 hover:underline">
                {copy.updates}
              </a>
            </li>
            <li>
              <a href={FEED_PATH} className="inline-block py-1 text-link underline-offset-4 hover:underline">
                {copy.feed}
              </a>
            </li>
          </ul>
        </div>
      </footer>
    </>
  );
}
