import { lazy, memo, Suspense, useEffect, useState } from "react";
import type { NewsletterDialogProps } from "~/components/newsletter-dialog";

// The home page's sign-up dialog, loaded on demand the way app/components/lazy-newsletter-dialog.tsx loads it (the
// reasons are there). A second small loader rather than an import of that one: a module the home route shares with
// these routes becomes a chunk of its own in the home page's JavaScript (measured: +275 B gzip, past its 90 KiB
// budget); the dialog's own chunk is the same one for both (decision 016).
function dialogOnDemand() {
  let load = () => {};
  const requested = new Promise<void>((resolve) => (load = resolve));
  const Component = lazy(async () => {
    await requested;
    return { default: (await import("~/components/newsletter-dialog")).NewsletterDialog };
  });
  if (typeof document === "undefined") load();
  return { Component, load };
}

/** The sign-up dialog on the updates pages: fetched at the visitor's first press, or at once when it is wanted. */
export const UpdatesNewsletterDialog = memo(function UpdatesNewsletterDialog(props: NewsletterDialogProps) {
  const [dialog] = useState(dialogOnDemand);
  const wanted = props.open || props.lastResult !== null;
  useEffect(() => {
    if (wanted || document.getElementById(props.id)?.matches(":popover-open")) return dialog.load();
    addEventListener("pointerdown", dialog.load, true);
    addEventListener("keydown", dialog.load, true);
    return () => {
      removeEventListener("pointerdown", dialog.load, true);
      removeEventListener("keydown", dialog.load, true);
    };
  }, [wanted, props.id, dialog]);
  return (
    <Suspense fallback={null}>
      <dialog.Component {...props} />
    </Suspense>
  );
});
