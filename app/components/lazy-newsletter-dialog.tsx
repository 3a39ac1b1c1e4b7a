import { lazy, memo, Suspense, useEffect, useState, type ComponentType } from "react";
import type { NewsletterDialogProps } from "~/components/newsletter-dialog";

/** What sets the chunk off: a visitor's first press, before it can change the dialog or the router. */
const FIRST_INPUT = ["pointerdown", "keydown"];

/**
 * A lazy component whose chunk is fetched when `load()` is called, not when React first renders it: until then it
 * suspends, and React keeps the server's HTML of the boundary as it is (it hydrates it once the chunk is there).
 */
function onDemand<Props>(importer: () => Promise<ComponentType<Props>>) {
  let load = () => {};
  const requested = new Promise<void>((resolve) => (load = resolve));
  const Component = lazy(async () => {
    await requested;
    return { default: await importer() };
  });
  // The server renders it with the page: its HTML (a popover and a plain form) works without JavaScript.
  if (typeof document === "undefined") load();
  return { Component, load };
}

const importDialog = async () => (await import("~/components/newsletter-dialog")).NewsletterDialog;

/**
 * The newsletter dialog (app/components/newsletter-dialog.tsx) in a chunk of its own: the browser fetches it at the
 * visitor's first input, or at once when the dialog is wanted (open, opened as the popover before React ran, or with
 * an answer to show), and not with the page (the JavaScript budget, tests/e2e/budgets.spec.ts).
 *
 * While the chunk is on its way the boundary is still the server's HTML, and React 18 would render it again from
 * scratch (losing an open popover and what is typed in it) if the boundary got new props. `memo` keeps it out of the
 * page's own re-renders (the hydrated flag, loader data); its props change only through the visitor's input, which
 * has already asked for the chunk. In development an edit's reload changes Remix's state without any input, so the
 * chunk comes at once there (the budget is a production figure).
 */
export const NewsletterDialog = memo(function LazyNewsletterDialog(props: NewsletterDialogProps) {
  const [dialog] = useState(() => onDemand(importDialog));
  const { id, open, lastResult } = props;
  const wanted = open || lastResult !== null || process.env.NODE_ENV === "development";

  useEffect(() => {
    if (wanted || document.getElementById(id)?.matches(":popover-open")) return dialog.load();
    for (const type of FIRST_INPUT) addEventListener(type, dialog.load, true);
    return () => {
      for (const type of FIRST_INPUT) removeEventListener(type, dialog.load, true);
    };
  }, [wanted, id, dialog]);

  return (
    <Suspense fallback={null}>
      <dialog.Component {...props} />
    </Suspense>
  );
});
