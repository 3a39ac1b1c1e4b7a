/**
 * A loopback HTTP server for the latest-post fakes (bluesky.ts, mastodon.ts): each request is recorded and
 * answered by the fake's route function, or left hanging until close.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Answer =
  { kind: "json"; status: number; body: unknown; headers?: Record<string, string> } | { kind: "hang" }; // never answers (until close)

export interface FakeJsonServer {
  /** Like http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** Every request's path and query, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startFakeJsonServer(
  route: (url: URL, request: IncomingMessage) => Answer,
): Promise<FakeJsonServer> {
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    requests.push(request.url ?? "");
    const answer = route(new URL(request.url ?? "/", "http://fake.invalid"), request);
    if (answer.kind === "hang") {
      hanging.add(response);
      return;
    }
    response.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
