import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Links, Meta, Outlet, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { ToastRegion } from "~/components/toast";
import { meta as siteMeta, owner } from "~/content/site";
import { enhanceScriptSrc } from "~/enhance-script.server";
import { inlineStylesheet } from "~/inline-stylesheet.server";
import { useNonce } from "~/lib/nonce";
import stylesheet from "~/tailwind.css";
import { readToast } from "~/toast.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const { toast, headers } = await readToast(request);
  return json({ toast, enhanceScriptSrc, inlineCss: inlineStylesheet?.css ?? null }, { headers });
}

// The stylesheet is inlined by Layout (or linked there when it cannot be).
export const links: LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export const meta: MetaFunction = () => [
  { title: siteMeta.title },
  { name: "description", content: siteMeta.description },
  { property: "og:type", content: "website" },
  { property: "og:title", content: siteMeta.title },
  { property: "og:description", content: siteMeta.description },
  { property: "og:url", content: owner.siteUrl },
  { property: "og:image", content: new URL(owner.photo.src, owner.siteUrl).toString() },
  { name: "twitter:card", content: "summary" },
];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Undefined when the root loader itself failed: the page still renders, without toast or script.
  const data = useRouteLoaderData<typeof loader>("root");
  return (
    <html lang="en" className="bg-slate-50">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#4f46e5" />
        <Meta />
        {data?.inlineCss ? (
          // Allowed by its hash in the CSP (security-headers.server.ts); one round trip less before the first paint.
          <style dangerouslySetInnerHTML={{ __html: data.inlineCss }} />
        ) : (
          <link rel="stylesheet" href={stylesheet} />
        )}
        <Links />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        {children}
        <ToastRegion toast={data?.toast ?? null} />
        {/* No React hydration (docs/decisions/002-no-hydration.md): one small module enhances the page instead. */}
        {data?.enhanceScriptSrc ? <script type="module" src={data.enhanceScriptSrc} nonce={nonce} /> : null}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  // Reached only by an unexpected error: the visitor still gets a page, the details stay in the server log.
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 text-center">
      <h1 className="text-4xl font-extrabold text-slate-900">Something went wrong</h1>
      <p className="mt-4 text-slate-700">Please try again later.</p>
      <a href="/" className="mt-8 font-semibold text-indigo-800 underline">
        Return to Home
      </a>
    </main>
  );
}
