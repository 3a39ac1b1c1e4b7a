import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import { statusCopy } from "~/content/status-copy";
import { devUpdateError } from "~/updates/dev-error";

/**
 * The updates pages' error boundary: the site's 404 page for an update that is not shown; under `npm run dev`, a bad
 * update file's line (file and reason); anything else goes on to the root's generic page.
 */
export function UpdatesErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <StatusPage heading={statusCopy.notFound.heading} text={statusCopy.notFound.text} notFound />;
  }
  // The compiler replaces process.env.NODE_ENV in the browser's bundle too: production never shows the message.
  const message = devUpdateError(error, process.env.NODE_ENV);
  if (message !== null) return <StatusPage heading={statusCopy.updateNeedsFix} text={message} reloadHome />;
  throw error;
}
