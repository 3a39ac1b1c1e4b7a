import type { LoaderFunctionArgs } from "@remix-run/node";
import { resourceResponse } from "~/utils/resource-response.server";
import { services } from "~/server-build/services.server";

// The container's health check (Dockerfile HEALTHCHECK, or a proxy's probe). Answering at all shows the server can
// serve; the store must be able to take a sign-up too (it tells the log itself when that changes).
export async function loader({ request }: LoaderFunctionArgs) {
  const healthy = services().healthy();
  return resourceResponse(request, healthy ? "ok" : "unavailable", {
    type: "text/plain; charset=utf-8",
    cacheControl: "no-store",
    status: healthy ? 200 : 503,
  });
}
