import net from "node:net";
import { describe, expect, it } from "vitest";
import { serverForAll } from "../../support/shared-server";

// The server's limit for a connection that sends nothing (server/index.mjs), and how long past it we wait.
const FIRST_REQUEST_TIMEOUT_MS = 15_000;
const SLACK_MS = 10_000;
const IDLE_SOCKETS = 20;

const shared = serverForAll();

interface Watched {
  socket: net.Socket;
  /** When the server ended the connection (ms since the test started), or null while it is open. */
  closedAt: number | null;
  received: string;
}

function connect(started: number): Promise<Watched> {
  const { port } = new URL(shared.server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
    const watched: Watched = { socket, closedAt: null, received: "" };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (watched.received += chunk));
    socket.on("close", () => (watched.closedAt ??= performance.now() - started));
    socket.on("error", () => {});
    socket.once("connect", () => resolve(watched));
    socket.once("error", reject);
  });
}

const waitUntil = async (done: () => boolean, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs;
  while (!done() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
};

describe("connections that never send a request", () => {
  it(
    "are closed after a bounded time, while a kept-alive connection and new visitors are served",
    async () => {
      const started = performance.now();
      const idle = await Promise.all(Array.from({ length: IDLE_SOCKETS }, () => connect(started)));
      // A browser's connection: one request, then kept alive (keepAliveTimeout, 65 s) for the next one.
      const keptAlive = await connect(started);
      keptAlive.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await waitUntil(() => keptAlive.received.includes("\r\n\r\n"), 5_000);
      expect(keptAlive.received).toMatch(/^HTTP\/1\.1 200 /);

      await waitUntil(() => idle.every(({ closedAt }) => closedAt !== null), FIRST_REQUEST_TIMEOUT_MS + SLACK_MS);
      const stillOpen = idle.filter(({ closedAt }) => closedAt === null).length;
      expect(stillOpen, `${stillOpen} of ${IDLE_SOCKETS} silent connections still open`).toBe(0);
      for (const { closedAt, received } of idle) {
        // Not before the limit (a browser may open a connection a little before it uses it), and nothing sent back.
        expect(closedAt!).toBeGreaterThanOrEqual(FIRST_REQUEST_TIMEOUT_MS - 1_000);
        expect(received).toBe("");
      }
      expect(keptAlive.closedAt, "the kept-alive connection was cut with the silent ones").toBeNull();
      keptAlive.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      const before = keptAlive.received.length;
      await waitUntil(() => keptAlive.received.length > before && keptAlive.closedAt !== null, 5_000);
      expect(keptAlive.received.slice(before)).toMatch(/^HTTP\/1\.1 200 /);

      const response = await fetch(`${shared.server.url}/healthz`);
      expect(response.status).toBe(200);
      for (const { socket } of [...idle, keptAlive]) socket.destroy();
    },
    FIRST_REQUEST_TIMEOUT_MS + SLACK_MS + 20_000,
  );
});
