import type { LoaderFunctionArgs } from "@remix-run/node";
import { failingHealthChecks } from "~/lib/health.server";
import { isHttps, resourceHeaders } from "~/security-headers.server";

// The container's health check (Dockerfile HEALTHCHECK, or a proxy's probe). Answering at all shows the server can
// serve; the registered checks (e.g. the embedded store) must pass too. Nothing here calls Supabase: a probe every
// few seconds must not spend its quota or fail because it is slow.
export async function loader({ request }: LoaderFunctionArgs) {
  const failing = await failingHealthChecks();
  const headers = {
    ...resourceHeaders(isHttps(request)),
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
  };
  if (failing.length > 0) {
    // The names stay in the log: the probe is public.
    console.error(`Health check failed: ${failing.join(", ")}`);
    return new Response("unavailable", { status: 503, headers });
  }
  return new Response("ok", { status: 200, headers });
}
