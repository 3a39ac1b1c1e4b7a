import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import type { ShouldRevalidateFunction } from "@remix-run/react";
import { Links, LiveReload, Meta, Outlet, Scripts, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { useSignUp } from "~/components/sign-up";
import { StatusPage } from "~/components/status-page";
import { ToastProvider, ToastRegion } from "~/components/toast";
import { perfTweaksOn } from "~/perf/switch.server";
import { WholeDocumentFirst } from "~/perf/whole-document-first";
import { documentMetaAt } from "~/sharing/document-meta.server";
import { isNoAnswer } from "~/newsletter/no-answer";
import { useNonce } from "~/utils/nonce";
import { useHydrated } from "~/utils/use-hydrated";
import stylesheet from "~/tailwind.css";
import { readFlash } from "~/utils/toast.server";
import { newsletterCopy } from "~/content/site";

/** What the last form post flashed: the toast to show, and the form's reply for Conform; whether app/perf/ is on. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { headers, ...flash } = await readFlash(request);
  // The dialog's words reach its chunk as data (app/components/newsletter-dialog.tsx), not as an import of the content.
  return data({ flash, meta: documentMetaAt(new Date()), perfTweaks: perfTweaksOn, newsletterCopy }, { headers });
}

export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, defaultShouldRevalidate }) =>
  isNoAnswer(actionResult) ? false : defaultShouldRevalidate;

// The stylesheet is linked, not inlined: its request is a render-blocking one that Lighthouse's simulation counts
// before the first paint, which keeps the browser's own start-up work out of the blocking time it measures
// (docs/decisions/014-scripts-after-first-paint.md). Built with a content hash, it is cached for a year.
// The PNGs (scripts/make-icons.mjs) are for browsers without SVG icons, and Safari's touch icon.
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon-48.png", type: "image/png", sizes: "48x48" },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png", sizes: "180x180" },
];

// From loader data rather than an import of the content, like everything the owner writes (see siteContent).
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data ? [{ title: data.meta.title }, ...data.meta.tags] : [];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Undefined when the root loader itself failed: the page still renders, without toast.
  const data = useRouteLoaderData<typeof loader>("root");
  // Set once React runs the page: what scripts and tests wait for before they click.
  const hydrated = useHydrated();
  return (
    <html lang="en" className="bg-page" data-hydrated={hydrated ? "true" : undefined}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* Before any CSS: the browser paints the canvas and its controls in the visitor's scheme (app/tailwind.css). */}
        <meta name="color-scheme" content="light dark" />
        <meta name="theme-color" content="#4f46e5" media="(prefers-color-scheme: light)" />
        <meta name="theme-color" content="#1e1a4d" media="(prefers-color-scheme: dark)" />
        <Meta />
        <Links />
        {/* From the loader data, so the browser renders the same head when it hydrates; on unless switched off. */}
        {data?.perfTweaks === false ? null : <WholeDocumentFirst />}
      </head>
      <body className="min-h-screen bg-page font-sans text-ink antialiased">
        <ToastProvider flashed={data?.flash.toast ?? null}>
          {children}
          <ToastRegion />
        </ToastProvider>
        <Scripts nonce={nonce} />
        {/* `npm run dev` only: reloads the page after each rebuild (renders nothing in production). */}
        <LiveReload nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { flash } = useLoaderData<typeof loader>();
  return <Outlet context={useSignUp(flash.formReply)} />;
}

export function ErrorBoundary() {
  // Reached only by an unexpected error: the visitor still gets a page, the details stay in the server log.
  return <StatusPage heading="Something went wrong" text="Please try again later." reloadHome />;
}
