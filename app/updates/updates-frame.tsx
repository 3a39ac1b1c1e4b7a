import { useRouteLoaderData } from "@remix-run/react";
import { type ReactNode, useRef, useState } from "react";
import { Footer, type FooterProps } from "~/components/footer";
import { NewsletterDialog } from "~/components/lazy-newsletter-dialog";
import { NEWSLETTER_DIALOG_ID, NEWSLETTER_FORM_ID } from "~/newsletter/messages";
import { useHydrated } from "~/utils/use-hydrated";
import type { loader as rootLoader } from "~/root";

/** What every updates page shows around its own content: the way home, the sign-up and the footer. */
export function UpdatesFrame({ children, footer }: { children: ReactNode; footer: FooterProps }) {
  const formReply = useRouteLoaderData<typeof rootLoader>("root")?.flash.formReply ?? null;
  const hydrated = useHydrated();
  const [dialogOpen, setDialogOpen] = useState(false);
  const openerRef = useRef<HTMLButtonElement>(null);
  return (
    <>
      <header className="mx-auto max-w-3xl px-4 pt-8 sm:px-6">
        {/* Plain links between the pages: a whole page each, complete without JavaScript, and no route discovery. */}
        <a href="/" className="inline-block py-2 text-sm font-semibold text-link underline-offset-4 hover:underline">
          {footer.content.owner.name}
        </a>
      </header>
      <main className="mx-auto max-w-3xl px-4 pb-16 sm:px-6">
        {children}
        <aside
          aria-labelledby="get-updates-title"
          className="mt-14 rounded-2xl border border-edge-accent bg-surface p-6"
        >
          <h2 id="get-updates-title" className="text-lg font-bold text-ink">
            Every update, by mail
          </h2>
          <p className="mt-2 text-ink-soft">Get the next one in your inbox, the day it is written.</p>
          <button
            type="button"
            id="get-updates"
            ref={openerRef}
            popovertarget={hydrated ? undefined : NEWSLETTER_DIALOG_ID}
            aria-haspopup={hydrated ? "dialog" : undefined}
            onClick={hydrated ? () => setDialogOpen(true) : undefined}
            className="mt-4 inline-flex min-h-11 items-center justify-center rounded-full bg-accent px-6 py-3 font-semibold text-white shadow transition hover:bg-accent-hover"
          >
            Get Updates
          </button>
        </aside>
      </main>
      <NewsletterDialog
        id={NEWSLETTER_DIALOG_ID}
        open={dialogOpen}
        onOpenChange={setDialogOpen}
        openerRef={openerRef}
        lastResult={formReply?.form === NEWSLETTER_FORM_ID ? formReply : null}
      />
      <Footer {...footer} />
    </>
  );
}
