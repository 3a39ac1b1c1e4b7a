import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import { statusCopy } from "~/content/status-copy";
import { describeCause, logField, warnThrottled } from "~/utils/log.server";
import { resourceHeaders } from "~/utils/security-headers.server";
import { staticPage } from "~/server-build/static-page.server";

// The root error boundary's words, as a page of its own: it is sent when Remix itself could not run (a request it
// cannot turn into a URL, a fault in the server around it), so nothing here may depend on the app rendering.
const SERVER_ERROR_PAGE = staticPage(statusCopy.failure.heading, statusCopy.failure.text);

/** The status an error asks for when it is the client's doing (a 4xx from a middleware), else 500. */
function statusOf(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500 ? status : 500;
}

/**
 * The last resort for anything that throws outside Remix's own error handling (server/index.mjs: around the whole
 * request, and as Express's error handler): the site's 500 page with the usual headers, never Express's default page
 * or a stack. One short log line, counted by the error's kind, so a flood of one fault costs a few lines a minute
 * whatever paths it uses.
 */
export function answerServerError(req: IncomingMessage, res: ServerResponse, error: unknown, https: boolean): void {
  const status = statusOf(error);
  reportFault(
    `Server error ${status}`,
    error,
    `: ${req.method ?? "?"} ${logField(req.url ?? "")} from ${req.socket.remoteAddress ?? "unknown"}`,
  );
  // Part of an answer has gone out: the only honest end is to cut the connection.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = status === 500 ? SERVER_ERROR_PAGE : `${STATUS_CODES[status] ?? "Client Error"}\n`;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.writeHead(status, {
    ...resourceHeaders(https),
    "Content-Type": status === 500 ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

/**
 * A promise rejected with nothing to handle it (server/index.mjs, for the whole process): the server goes on serving,
 * where Node's default would end it with every request in flight. One short line, counted by the error's kind like
 * the 500s above, so a fault that repeats on every request stays a few lines a minute.
 */
export function reportUnhandledRejection(reason: unknown): void {
  reportFault("Unhandled rejection", reason, ": the server goes on");
}

/**
 * One short line for a fault: `what`, the error's name and message escaped and cut, then `detail`. The message may
 * quote the request (a file path, a header), so the count goes by `what` and the error's name and code alone: a fault
 * that repeats on every request, whatever its path, stays a few lines a minute.
 */
export function reportFault(what: string, error: unknown, detail = ""): void {
  const cause = logField(describeCause(error), 120);
  const code = (error as { code?: unknown } | null)?.code;
  warnThrottled(
    `${what} ${cause}${detail}`,
    `${what} ${error instanceof Error ? error.name : typeof error} ${String(code ?? "")}`,
  );
}
