import { useNavigation, useRevalidator } from "@remix-run/react";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import type { NewsletterDialogProps } from "~/components/newsletter-dialog";

// The home page's sign-up dialog (app/components/newsletter-dialog.tsx), loaded as app/components/lazy-newsletter-dialog.tsx
// loads it: the server renders it with the page (a popover and a plain form without JavaScript), the browser fetches
// its chunk only once it is wanted. A copy of that loader rather than an import of it: any module the home route
// shares with these routes becomes a chunk of its own in the home page's JavaScript (measured: +350 B gzip, past its
// 90 KiB budget); the dialog's own chunk is the same one for both.
let requestDialog: () => void = () => {};
const dialogRequested = new Promise<void>((resolve) => (requestDialog = resolve));

const LoadedDialog = lazy(async () => {
  if (typeof document !== "undefined") await dialogRequested;
  const { NewsletterDialog } = await import("~/components/newsletter-dialog");
  return { default: NewsletterDialog };
});

/** The sign-up dialog, hydrated once it is wanted (the reasons, step by step: app/components/lazy-newsletter-dialog.tsx). */
export function UpdatesNewsletterDialog(props: NewsletterDialogProps) {
  const [hydrated, setHydrated] = useState(false);
  const { id, open, lastResult } = props;
  const wanted = open || lastResult !== null;
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
  // Until it has hydrated, the boundary keeps the props of the first render (React 18 would otherwise render it anew).
  const firstRender = useRef(dialog);
  return hydrated ? dialog : firstRender.current;
}
