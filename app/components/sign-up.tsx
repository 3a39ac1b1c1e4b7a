import { startTransition, useMemo, useRef, useState, type MouseEvent, type ReactNode, type RefObject } from "react";
import { NewsletterDialog } from "~/components/lazy-newsletter-dialog";
import type { NewsletterReply } from "~/components/newsletter-field";
import { NEWSLETTER_ACTION, NEWSLETTER_DIALOG_ID, NEWSLETTER_FORM_ID } from "~/newsletter/sign-up/form-names";

/**
 * The props of a page's 'Get Updates' button, the same before and after hydration: without JavaScript it is the
 * popover's invoker; once React runs, its click handler cancels that and opens the modal instead.
 */
export interface GetUpdatesButtonProps {
  id: string;
  ref: RefObject<HTMLButtonElement>;
  popovertarget: string;
  "aria-haspopup": "dialog";
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
}

/**
 * What the root hands its pages as Remix's outlet context (`useOutletContext<SignUpOutlet>()`): a page with the
 * sign-up spreads `getUpdates` on its button and places `dialog` where the dialog belongs in its document.
 */
export interface SignUpOutlet {
  getUpdates: GetUpdatesButtonProps;
  dialog: ReactNode;
}

/**
 * The one newsletter sign-up of the site: the dialog's state, its opener and the dialog. It lives in the root and
 * reaches the pages through the outlet context, because a module imported by the home route and the updates routes
 * alike would be a chunk of its own in the home page's JavaScript (decision 016); the pages import only its types.
 *
 * The context's value changes only when the dialog's own props do: a new value is a context change, which React
 * also delivers to the dialog's boundary while that is still the server's HTML, and it would render it again from
 * scratch (losing an open popover and what is typed in it) if that came before the dialog's chunk.
 */
/** `formReply`: the root loader's flashed form reply, whichever form it answers (the dialog takes only its own). */
export function useSignUp(formReply: (NewsletterReply & { form: string }) | null): SignUpOutlet {
  const [open, setOpen] = useState(false);
  const openerRef = useRef<HTMLButtonElement>(null);
  const lastResult = formReply?.form === NEWSLETTER_FORM_ID ? formReply : null;
  return useMemo(
    () => ({
      getUpdates: {
        id: "get-updates",
        ref: openerRef,
        popovertarget: NEWSLETTER_DIALOG_ID,
        "aria-haspopup": "dialog",
        onClick: (event) => {
          event.preventDefault();
          // A transition: until its chunk has come (asked for by the press itself), the dialog is still the server's
          // HTML, and React applies the update once it has hydrated it instead of rendering it again from scratch.
          startTransition(() => setOpen(true));
        },
      },
      dialog: (
        <NewsletterDialog
          id={NEWSLETTER_DIALOG_ID}
          action={NEWSLETTER_ACTION}
          open={open}
          onOpenChange={setOpen}
          openerRef={openerRef}
          lastResult={lastResult}
        />
      ),
    }),
    [open, lastResult],
  );
}
