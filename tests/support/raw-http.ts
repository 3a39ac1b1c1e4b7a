/** HTTP written by hand, for requests fetch() refuses to send (a bad Host, no Host, HTTP/1.0, a lying length). */
import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the connection ended: "close" after the answer, "reset" if it was cut, "timeout" if it hung. */
  ended: "close" | "reset" | "timeout";
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the blank line) and then `body`, and reads until
 * the server closes the connection or `timeoutMs` passes. HTTP/1.1 requests must say `Connection: close`.
 */
export function rawRequest(
  url: string,
  head: string,
  body: Buffer | string = "",
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let ended: RawResponse["ended"] = "close";
    const timer = setTimeout(() => {
      ended = "timeout";
      socket.destroy();
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {
      if (ended === "close") ended = "reset";
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString("latin1"), ended));
    });
    // No half-close after the request: Node's server would take it as the client leaving and drop the answer.
    socket.write(`${head}\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
}

function parse(text: string, ended: RawResponse["ended"]): RawResponse {
  const split = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = (split === -1 ? text : text.slice(0, split)).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: split === -1 ? "" : text.slice(split + 4), ended };
}
