import type { LoaderFunctionArgs } from "@remix-run/node";
import { isHttps, resourceHeaders } from "~/utils/security-headers.server";
import { subscriberStoreHealthy } from "~/newsletter/subscribers.server";

// The container's health check (Dockerfile HEALTHCHECK, or a proxy's probe). Answering at all shows the server can
// serve; the store must be able to take a sign-up too (it tells the log itself when that changes).
export async function loader({ request }: LoaderFunctionArgs) {
  const healthy = subscriberStoreHealthy();
  const headers = {
    ...resourceHeaders(isHttps(request)),
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
  };
  if (!healthy) return new Response("unavailable", { status: 503, headers });
  return new Response("ok", { status: 200, headers });
}
