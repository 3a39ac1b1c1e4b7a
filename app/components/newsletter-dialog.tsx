import { Form, useNavigation, useRouteLoaderData } from "@remix-run/react";
import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import type { NewsletterCopy } from "~/content/site";
import type { loader as rootLoader } from "~/root";
import { emailField, type NewsletterReply } from "~/components/newsletter-field";
import { TOAST_HOST_CLASS, useToastHost } from "~/components/toast";
import { EMAIL_MAX_LENGTH } from "~/newsletter/sign-up/email-length";
import { useHydrated } from "~/takeover/use-hydrated";

// Layout effects run in the browser only; on the server React would warn that it cannot run them (development).
const useHydrationLayoutEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

/** Without the root's data (its loader failed) the error page shows, not the dialog: empty words satisfy the types. */
const newsletterCopyMissing: NewsletterCopy = {
  title: "",
  text: "",
  emailLabel: "",
  emailPlaceholder: "",
  submit: "",
  busy: "",
  footnote: "",
  close: "",
};

export interface NewsletterDialogProps {
  id: string;
  /** Where the form posts (the index route's action), the same whatever query string the page was opened with. */
  action: string;
  /** Whether the modal is open (with JavaScript; without it the popover opens by itself). */
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** 'Get Updates': focus goes back to it when the dialog closes. */
  openerRef: RefObject<HTMLButtonElement>;
  /** What the action answered to the last sign-up (flashed across its redirect): the field's state, and closing. */
  lastResult: NewsletterReply | null;
}

/**
 * The newsletter sign-up. The server renders an HTML popover opened by 'Get Updates' and a plain form post
 * (post/redirect/get), which is the whole behaviour without JavaScript. Once React runs it is a modal dialog: focus
 * moves in, Escape, the close button or a click on the backdrop close it, focus returns to 'Get Updates'; the Remix
 * form submits without a reload and shows its busy state.
 *
 * A visitor who opened the popover before React ran keeps typing through the takeover: the commit that removes the
 * popover also shows the modal and puts the focus back in the field, in one task, so no key press falls in between
 * and the field (the same element) keeps every character.
 */
export function NewsletterDialog({ id, action, open, onOpenChange, openerRef, lastResult }: NewsletterDialogProps) {
  // The owner's words (app/content/site.ts), from the root's loader data: read here, inside the dialog's own chunk, so
  // the content is never part of the page's JavaScript.
  const copy = useRouteLoaderData<typeof rootLoader>("root")?.newsletterCopy ?? newsletterCopyMissing;
  const hydrated = useHydrated();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const toastHost = useToastHost();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === action;

  // The server validates (Conform + zod there) and its reply says what to show; the browser keeps its own required,
  // type=email and maxlength checks.
  const formId = `${id}-form`;
  const email = emailField(id, lastResult);
  // Each answer is a new object: the field starts again from it (empty after a success, what was sent after an error).
  const [answered, setAnswered] = useState(lastResult);
  const [fieldKey, setFieldKey] = useState(0);
  if (answered !== lastResult) {
    setAnswered(lastResult);
    setFieldKey(fieldKey + 1);
  }
  const titleId = `${id}-title`;
  const descriptionId = `${id}-description`;

  const inputRef = useRef<HTMLInputElement>(null);

  // A visitor quick enough to open the popover before React took over keeps it open, as the modal.
  useHydrationLayoutEffect(() => {
    if (dialogRef.current?.matches(":popover-open")) onOpenChange(true);
  }, []);

  // A layout effect: it runs in the commit that changes the element. When that commit removes the open popover (the
  // takeover), the modal is shown and the field focused again before the browser handles the next key press.
  useHydrationLayoutEffect(() => {
    const dialog = dialogRef.current;
    if (!hydrated || !dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      inputRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open, hydrated]);

  // Each answer is a new object (flashed by the action, read by the root loader's revalidation).
  useEffect(() => {
    if (!lastResult) return;
    if (lastResult.outcome === "subscribed") onOpenChange(false);
    else if (dialogRef.current?.open) inputRef.current?.focus();
  }, [lastResult]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <dialog
      ref={dialogRef}
      id={id}
      popover={hydrated ? undefined : "auto"}
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      // Escape: the browser fires cancel in the key press's own task and queues close for later, so a visitor's next
      // press can come in between; the state is updated here, at once, so a 'Get Updates' pressed before the close
      // event is not undone by it.
      onCancel={() => onOpenChange(false)}
      onClose={() => {
        // Already open again (reopened before this event came): nothing closed any more.
        if (dialogRef.current?.open) return;
        // Closed by the browser without a cancel event (it skips cancel without a recent user activation).
        if (open) onOpenChange(false);
        openerRef.current?.focus();
      }}
      onClick={(event) => {
        // The dialog element itself is only hit outside the panel: on the backdrop.
        if (event.target === event.currentTarget) onOpenChange(false);
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl border border-edge bg-raised p-0 text-ink shadow-2xl backdrop:bg-backdrop"
    >
      <div className="relative p-6 sm:p-8">
        <button
          type="button"
          popovertarget={hydrated ? undefined : id}
          popovertargetaction={hydrated ? undefined : "hide"}
          onClick={hydrated ? () => onOpenChange(false) : undefined}
          className="absolute right-3 top-3 inline-flex h-11 w-11 items-center justify-center rounded-full text-2xl leading-none text-ink-muted hover:bg-surface-muted hover:text-ink"
        >
          <span aria-hidden="true">×</span>
          <span className="sr-only">{copy.close}</span>
        </button>
        <h2 id={titleId} className="pr-10 text-2xl font-bold">
          {copy.title}
        </h2>
        <p id={descriptionId} className="mt-2 text-ink-soft">
          {copy.text}
        </p>
        <Form
          method="post"
          action={action}
          id={formId}
          replace
          preventScrollReset
          aria-busy={busy || undefined}
          className="mt-6 space-y-4"
        >
          <div>
            <label htmlFor={email.id} className="block text-sm font-semibold text-ink">
              {copy.emailLabel}
            </label>
            {/* Uncontrolled: what the visitor types is the element's own state, never replaced by a render. */}
            <input
              key={fieldKey}
              ref={inputRef}
              id={email.id}
              name={email.name}
              form={formId}
              type="email"
              required
              maxLength={EMAIL_MAX_LENGTH}
              defaultValue={email.initialValue}
              aria-invalid={email.error ? true : undefined}
              aria-describedby={email.error ? email.errorId : undefined}
              disabled={busy}
              autoComplete="email"
              placeholder={copy.emailPlaceholder}
              className="mt-1 block w-full rounded-lg border border-edge-control px-4 py-3 text-base text-ink placeholder:text-ink-muted disabled:bg-surface-muted"
            />
            {email.error ? (
              <p id={email.errorId} className="mt-1 text-sm text-danger">
                {email.error}
              </p>
            ) : null}
          </div>
          {/* A honeypot: bots that fill every field are quietly ignored. Hidden by HTML itself, not only by the
              stylesheet, so browsers without CSS hide it too; a text browser that shows it anyway shows a label
              that tells the reader to leave it empty. */}
          <div hidden aria-hidden="true">
            <label htmlFor={`${id}-website`}>Leave this field empty</label>
            <input id={`${id}-website`} name="website" type="text" tabIndex={-1} autoComplete="off" />
          </div>
          <button type="submit" disabled={busy} className="btn-accent w-full rounded-lg">
            {busy ? copy.busy : copy.submit}
          </button>
        </Form>
        <p className="mt-4 text-center text-xs text-ink-muted">{copy.footnote}</p>
      </div>
      {/* While the modal is open the page behind it is inert: its toasts show here instead. */}
      {hydrated && open ? <div ref={toastHost} className={TOAST_HOST_CLASS} /> : null}
    </dialog>
  );
}
