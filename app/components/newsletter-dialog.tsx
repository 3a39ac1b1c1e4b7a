import { Form } from "@remix-run/react";
import { EMAIL_MAX_LENGTH } from "~/lib/newsletter-messages";

/**
 * The newsletter sign-up. Without JavaScript it is an HTML popover opened by 'Get Updates' and submitted as a plain
 * form (post/redirect/get); the enhancement script (app/enhance) turns it into a modal dialog that submits in place.
 */
export function NewsletterDialog({ id }: { id: string }) {
  const titleId = `${id}-title`;
  const descriptionId = `${id}-description`;
  return (
    <dialog
      id={id}
      popover="auto"
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      data-newsletter-dialog=""
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-900/60"
    >
      <div className="relative p-6 sm:p-8">
        <button
          type="button"
          popovertarget={id}
          popovertargetaction="hide"
          data-dialog-close=""
          className="absolute right-3 top-3 inline-flex h-11 w-11 items-center justify-center rounded-full text-2xl leading-none text-slate-600 hover:bg-slate-100 hover:text-slate-900"
        >
          <span aria-hidden="true">×</span>
          <span className="sr-only">Close</span>
        </button>
        <h2 id={titleId} className="pr-10 text-2xl font-bold">
          Get Updates on My Journey
        </h2>
        <p id={descriptionId} className="mt-2 text-slate-700">
          Be the first to hear when a new project launches, what I learned building it, and how the challenge is going.
        </p>
        <Form method="post" action="/?index" className="mt-6 space-y-4" data-newsletter-form="">
          <div>
            <label htmlFor={`${id}-email`} className="block text-sm font-semibold text-slate-900">
              Email address
            </label>
            <input
              id={`${id}-email`}
              name="email"
              type="email"
              required
              maxLength={EMAIL_MAX_LENGTH}
              autoComplete="email"
              placeholder="Enter your email address"
              className="mt-1 block w-full rounded-lg border border-slate-400 px-4 py-3 text-base text-slate-900 placeholder:text-slate-600 disabled:bg-slate-100"
            />
          </div>
          {/* A honeypot: people never see or fill it; bots that fill every field are quietly ignored. */}
          <div className="hidden" aria-hidden="true">
            <label htmlFor={`${id}-website`}>Website</label>
            <input id={`${id}-website`} name="website" type="text" tabIndex={-1} autoComplete="off" />
          </div>
          <button
            type="submit"
            data-busy-label="Subscribing..."
            className="inline-flex min-h-11 w-full items-center justify-center rounded-lg bg-indigo-700 px-6 py-3 font-semibold text-white shadow transition hover:bg-indigo-800 disabled:cursor-wait disabled:bg-indigo-500"
          >
            Get Early Access
          </button>
        </Form>
        <p className="mt-4 text-center text-xs text-slate-600">Join the journey • No spam • Unsubscribe anytime</p>
      </div>
    </dialog>
  );
}
