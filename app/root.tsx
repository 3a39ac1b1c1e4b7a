import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import type { ShouldRevalidateFunction } from "@remix-run/react";
import {
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { useSignUp } from "~/components/sign-up";
import { StatusPage } from "~/components/status-page";
import { ToastProvider, ToastRegion } from "~/components/toast";
import { perfTweaksOn } from "~/perf/switch.server";
import { ScriptsAfterFirstPaint } from "~/perf/scripts-after-first-paint";
import { discoveryLinks } from "~/sharing/discovery-links.server";
import { documentMetaAt } from "~/sharing/document-meta.server";
import { isNoAnswer } from "~/newsletter/sign-up/no-answer";
import { useNonce } from "~/utils/nonce";
import { useHydrated } from "~/takeover/use-hydrated";
import stylesheet from "~/tailwind.css";
import { readFlash } from "~/utils/toast.server";
import { newsletterCopy } from "~/content/site";
import { statusCopy } from "~/content/status-copy";

/** What the last form post flashed: the toast to show, and the form's reply for Conform; whether app/perf/ is on. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { headers, ...flash } = await readFlash(request);
  // The dialog's words reach its chunk as data (app/components/newsletter-dialog.tsx), not as an import of the content.
  return data(
    { flash, meta: documentMetaAt(new Date()), discovery: discoveryLinks(), perfTweaks: perfTweaksOn, newsletterCopy },
    { headers },
  );
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
// Without the root's data (its error page, after an action refused a post), a title of its own and noindex: no canonical
// address either, since the site's address comes with that data.
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data
    ? [{ title: data.meta.title }, ...data.meta.tags]
    : [{ title: statusCopy.failure.heading }, { name: "robots", content: "noindex" }];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Undefined when the root loader itself failed: the page still renders, without toast.
  const data = useRouteLoaderData<typeof loader>("root");
  // Set once React runs the page: what scripts and tests wait for before they click.
  const hydrated = useHydrated();
  const { pathname } = useLocation();
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
        {data ? (
          <>
            {/* The origin and the path, concatenated: a path like `//host` must not become another site's address. */}
            <link rel="canonical" href={data.discovery.origin + pathname} />
            <link
              rel="alternate"
              type={data.discovery.feed.type}
              title={data.discovery.feed.title}
              href={data.discovery.feed.href}
            />
          </>
        ) : null}
      </head>
      <body className="min-h-screen bg-page font-sans text-ink antialiased">
        <ToastProvider flashed={data?.flash.toast ?? null}>
          {children}
          <ToastRegion />
        </ToastProvider>
        {/* Remix's own scripts when app/perf/ is switched off; otherwise the same, asked for after the first paint. */}
        {data?.perfTweaks === false ? <Scripts nonce={nonce} /> : <ScriptsAfterFirstPaint nonce={nonce} />}
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
  return <StatusPage heading={statusCopy.failure.heading} text={statusCopy.failure.text} reloadHome />;
}
