import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { logField, warnThrottled } from "~/utils/log.server";
import type { loader as rootLoader } from "~/root";

export async function loader({ request }: LoaderFunctionArgs) {
  const { pathname } = new URL(request.url);
  // Quoted, escaped and cut: a hostile path cannot forge log lines or fill the disk.
  warnThrottled(`404 Not Found: ${logField(pathname)}`);
  throw new Response("Not Found", { status: 404 });
}

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: site ? `Page not found · ${site}` : "Page not found" }, { name: "robots", content: "noindex" }];
};

function NotFound() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 text-center">
      <h1 className="text-7xl font-extrabold text-link">404</h1>
      <p className="mt-4 text-xl text-ink-soft">Oops! Page not found</p>
      <Link
        to="/"
        className="mt-8 inline-flex min-h-11 items-center rounded-full bg-accent px-6 py-3 font-semibold text-white shadow hover:bg-accent-hover"
      >
        Return to Home
      </Link>
    </main>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status !== 404) {
    // A post to a path that takes none (405): a short answer, not the app's error page and its log.
    return (
      <main className="flex min-h-screen flex-col items-center justify-center px-4 text-center">
        <h1 className="text-4xl font-extrabold text-ink">{error.status}</h1>
        <p className="mt-4 text-ink-soft">{error.statusText}</p>
        <Link to="/" className="mt-8 font-semibold text-link underline">
          Return to Home
        </Link>
      </main>
    );
  }
  if (isRouteErrorResponse(error)) return <NotFound />;
  throw error;
}

// Never rendered: the loader always throws the 404.
export default function Splat() {
  return <NotFound />;
}
