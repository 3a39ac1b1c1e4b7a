/**
 * A fake of the two X API v2 endpoints the edge function calls (a user's recent posts, and a username lookup), on
 * loopback only. Each test scripts the next answer; every request is counted and recorded.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type XBehaviour =
  | { kind: "posts"; texts: string[] } // 200 with the user's latest posts, newest first
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> } // any other answer
  | { kind: "hang" }; // never answers (until close)

export interface XRequest {
  path: string;
  authorization: string | undefined;
}

export interface FakeXApi {
  /** The base the function is given as X_API_BASE_URL, like https://api.x.com/2. */
  base: string;
  behave(behaviour: XBehaviour): void;
  readonly requests: XRequest[];
  close(): Promise<void>;
}

export async function startFakeXApi(): Promise<FakeXApi> {
  let behaviour: XBehaviour = { kind: "posts", texts: ["Hello from the fake X API."] };
  const requests: XRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? "", authorization: request.headers.authorization });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.url?.startsWith("/2/users/by/username/")) {
      send(200, { data: { id: "2244994945", name: "Owner", username: "owner" } });
      return;
    }
    switch (behaviour.kind) {
      case "posts":
        send(200, {
          data: behaviour.texts.map((text, index) => ({ id: String(1000 - index), text, edit_history_tweet_ids: [] })),
          meta: { result_count: behaviour.texts.length },
        });
        return;
      case "status":
        send(behaviour.status, behaviour.body ?? {}, behaviour.headers);
        return;
      case "hang":
        hanging.add(response);
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    base: `http://127.0.0.1:${port}/2`,
    behave(next) {
      behaviour = next;
    },
    requests,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
