// The Docker HEALTHCHECK (node:24-slim has no curl): exit 0 when GET /healthz answers 200, 1 otherwise.
const port = process.env.PORT || "3000";
// A wildcard listen address is reachable on loopback; a specific one is asked directly.
const host = !process.env.HOST || ["0.0.0.0", "::"].includes(process.env.HOST) ? "127.0.0.1" : process.env.HOST;
const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/healthz`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4_000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch (error) {
  console.error(`health check: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
