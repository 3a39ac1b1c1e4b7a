import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import { statusCopy } from "~/content/status-copy";
import { pageTitle } from "~/sharing/page-title";
import { logField, logNotFound } from "~/utils/log.server";
import type { loader as rootLoader } from "~/root";

export async function loader({ request }: LoaderFunctionArgs) {
  const { pathname } = new URL(request.url);
  // Quoted, escaped and cut: a hostile path cannot forge log lines or fill the disk.
  logNotFound(`404 Not Found: ${logField(pathname)}`);
  throw new Response("Not Found", { status: 404 });
}

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: pageTitle(statusCopy.notFound.title, site) }, { name: "robots", content: "noindex" }];
};

const NotFound = () => <StatusPage heading={statusCopy.notFound.heading} text={statusCopy.notFound.text} notFound />;

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status !== 404) {
    // A post to a path that takes none (405): a short answer, not the app's error page and its log.
    return <StatusPage heading={error.status} text={error.statusText} />;
  }
  if (isRouteErrorResponse(error)) return <NotFound />;
  throw error;
}

// Never rendered: the loader always throws the 404.
export default function Splat() {
  return <NotFound />;
}
