import { useNavigation, useRevalidator } from "@remix-run/react";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import type { NewsletterDialogProps } from "~/components/newsletter-dialog";

let requestDialog: () => void = () => {};
const dialogRequested = new Promise<void>((resolve) => (requestDialog = resolve));

// The dialog and what only it needs (Conform's useForm, the form's wiring) are a chunk of their own: the browser
// fetches it when the visitor opens the dialog, not with the page (the JavaScript budget, tests/e2e/budgets.spec.ts).
// The server renders it with the page as before: its HTML (a popover and a plain form) works without JavaScript.
const LoadedDialog = lazy(async () => {
  if (typeof document !== "undefined") await dialogRequested;
  const { NewsletterDialog } = await import("~/components/newsletter-dialog");
  return { default: NewsletterDialog };
});

/**
 * The newsletter dialog (app/components/newsletter-dialog.tsx), hydrated once it is wanted: when it opens, when the
 * page comes with an answer to a sign-up, or when the visitor opened the popover before React ran.
 *
 * Until then React keeps the server's HTML of the Suspense boundary as it is (it suspends on the chunk). That boundary
 * must not be given new props while it waits, or React 18 gives up hydrating it and renders it again from scratch:
 * it gets the props of the first render until the loaded dialog has hydrated and says so.
 */
export function NewsletterDialog(props: NewsletterDialogProps) {
  const [hydrated, setHydrated] = useState(false);
  const { id, open, lastResult } = props;
  const wanted = open || lastResult !== null;
  // A router update (a revalidation, `npm run dev`'s reload of the data) reaches the waiting boundary through Remix's
  // context, and React holds the whole update back until that boundary can hydrate: the chunk is asked for as soon as
  // the router is busy, here in the render, since the commit is what would wait (resolving twice is harmless).
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  if ((navigation.state !== "idle" || revalidator.state !== "idle") && typeof document !== "undefined") requestDialog();

  useEffect(() => {
    if (wanted || document.getElementById(id)?.matches(":popover-open")) requestDialog();
  }, [wanted, id]);

  const dialog = (
    <Suspense fallback={null}>
      <LoadedDialog {...props} onHydrated={() => setHydrated(true)} />
    </Suspense>
  );
  const firstRender = useRef(dialog);
  return hydrated ? dialog : firstRender.current;
}
