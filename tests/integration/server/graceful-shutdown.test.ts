// SIGTERM (what `docker stop` sends): the server stops accepting, answers what is in flight, closes and exits 0.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { owner } from "~/content/site";
import { serverHarness } from "../../support/production-server";

// Docker sends SIGKILL 10 s after SIGTERM by default; a clean exit must come well before.
const EXIT_BOUND_MS = 5_000;

const harness = serverHarness("portfolio-shutdown-data-");
afterEach(() => harness.cleanup());
const start = (env: Record<string, string> = {}) => harness.start(env);

/** A raw HTTP/1.1 connection, so a request can be left half-sent on purpose. */
async function connect(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const waitFor = (predicate: (text: string) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate(received)) return;
        socket.off("data", check);
        resolve();
      };
      socket.on("data", check);
      socket.once("close", () => (predicate(received) ? resolve() : reject(new Error(`closed before ${what}`))));
      check();
    });
  return { socket, received: () => received, closed, waitFor };
}

interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

/** The complete HTTP/1.1 responses in `raw` (Content-Length or chunked bodies, as our server sends). */
function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = Buffer.from(raw, "latin1");
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) return responses;
    const headers = rest.subarray(0, end).toString("latin1");
    let position = end + 4;
    let body: Buffer;
    if (/^transfer-encoding:\s*chunked/im.test(headers)) {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = rest.indexOf("\r\n", position);
        if (lineEnd === -1) return responses;
        const size = parseInt(rest.subarray(position, lineEnd).toString("latin1"), 16);
        if (rest.length < lineEnd + 2 + size + 2) return responses;
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        position = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(/^content-length:\s*(\d+)/im.exec(headers)?.[1] ?? "0");
      if (rest.length < position + length) return responses;
      body = rest.subarray(position, position + length);
      position += length;
    }
    responses.push({ status: Number(headers.slice(9, 12)), headers, body: body.toString("utf8") });
    rest = rest.subarray(position);
  }
}

const answered = (count: number) => (text: string) => parseResponses(text).length >= count;

describe("graceful shutdown", () => {
  it("answers a request still arriving when SIGTERM comes, closes its connection, and exits 0", async () => {
    const server = await start();
    const connection = await connect(server.url);
    // One write: a complete request, then the start of a second one on the same connection. Once the first answer is
    // back, the server has read the second request's first bytes: that request is in flight.
    connection.socket.write(
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n",
    );
    await connection.waitFor(answered(1), "the first answer");

    const signalledAt = Date.now();
    server.child.kill("SIGTERM");
    await server.waitForOutput("SIGTERM received");

    // No new connections once shutting down.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();

    // The visitor's request finally completes: it is answered in full.
    connection.socket.write("Accept-Language: en\r\n\r\n");
    await connection.closed;
    const [health, page] = parseResponses(connection.received());
    expect(health?.status).toBe(200);
    expect(page?.status).toBe(200);
    expect(page?.headers).toMatch(/^connection: close$/im);
    expect(page?.body).toContain(owner.name);
    expect(page?.body).toContain("</html>");

    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(EXIT_BOUND_MS);
    expect(server.output()).toContain("Shut down cleanly.");
    expect(server.output()).not.toContain("still open after");
  });

  it("exits 0 at once when nothing is in flight, even with an idle keep-alive connection open", async () => {
    const server = await start();
    const connection = await connect(server.url);
    connection.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    await connection.waitFor(answered(1), "the answer");

    const signalledAt = Date.now();
    server.child.kill("SIGTERM");
    await connection.closed;
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(EXIT_BOUND_MS);
  });

  // A subscription whose body is sent slowly is held open across the SIGTERM; the address must be stored.
  it("completes a subscription whose body is still arriving, and the address is still there after a restart", async () => {
    const dataDir = harness.scratchDir();
    const email = "shutdown-test@example.com";
    const body = `email=${encodeURIComponent(email)}`;
    const half = Math.floor(body.length / 2);

    const first = await start({ DATA_DIR: dataDir });
    const connection = await connect(first.url);
    connection.socket.write(
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
        "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
    );
    await connection.waitFor(answered(1), "the first answer");
    first.child.kill("SIGTERM");
    await first.waitForOutput("SIGTERM received");
    connection.socket.write(body.slice(half));
    await connection.closed;
    const [, subscribed] = parseResponses(connection.received());
    expect(subscribed?.status).toBeGreaterThanOrEqual(300);
    expect(subscribed?.status).toBeLessThan(400);
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const second = await start({ DATA_DIR: dataDir });
    const again = await fetch(`${second.url}/?index`, {
      method: "POST",
      body: new URLSearchParams({ email }),
      redirect: "manual",
    });
    const cookie = again.headers.getSetCookie().map((value) => value.split(";")[0]);
    const page = await fetch(new URL(again.headers.get("location") ?? "/", second.url), {
      headers: { Cookie: cookie.join("; ") },
    });
    expect(await page.text()).toContain("Already subscribed");
  });
});
