import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { statusCopy } from "~/content/status-copy";

interface StatusPageProps {
  heading: ReactNode;
  text: ReactNode;
  /** "status" when the text answers what the visitor just did, so that assistive technology reads it out. */
  textRole?: "status";
  /** The 404 page: a large heading, and the way home as a button. */
  notFound?: boolean;
  /** Home by a whole page load, as after an unexpected error, when the page's own state is not to be trusted. */
  reloadHome?: boolean;
  /** Between the text and the way home (the unsubscribe page's button). */
  children?: ReactNode;
}

/**
 * A page of one message and the way home: the 404 page, another error status, an unexpected error (the root's
 * boundary) and the unsubscribe page. One markup for all of them.
 */
export function StatusPage({
  heading,
  text,
  textRole,
  notFound = false,
  reloadHome = false,
  children,
}: StatusPageProps) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 text-center">
      <h1 className={notFound ? "text-7xl font-extrabold text-link" : "text-4xl font-extrabold text-ink"}>{heading}</h1>
      <p role={textRole} className={`mt-4 max-w-md ${notFound ? "text-xl" : "text-lg"} text-ink-soft`}>
        {text}
      </p>
      {children}
      <Link
        to="/"
        reloadDocument={reloadHome}
        className={notFound ? "btn-accent mt-8" : "mt-8 font-semibold text-link underline underline-offset-4"}
      >
        {statusCopy.returnHome}
      </Link>
    </main>
  );
}
