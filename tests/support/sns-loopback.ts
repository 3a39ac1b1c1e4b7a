/**
 * Amazon SNS's own host, on loopback, for the server's real SNS network code: an HTTPS server presenting a certificate
 * for sns.eu-west-1.amazonaws.com, and an HTTP CONNECT proxy that tunnels every connection to it. The server process
 * reaches it with Node's own proxy and trust settings (NODE_USE_ENV_PROXY, HTTPS_PROXY, NODE_EXTRA_CA_CERTS), so the
 * production checks (HTTPS, SNS's host name, default port, no redirect) run unchanged; nothing in app/ knows a test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const SNS_HOST = "sns.eu-west-1.amazonaws.com";
/** The certificate path the host answers 503 for. */
export const UNAVAILABLE_CERTIFICATE = "/SimpleNotificationService-unavailable.pem";

export interface SnsLoopback {
  /** Variables for the server process: its fetch goes through the proxy and trusts the loopback host. */
  readonly env: Record<string, string>;
  /** Each CONNECT target the proxy was asked for ("host:port"). */
  readonly tunnels: string[];
  /** Each request the loopback SNS host answered: method and path with query. */
  readonly requests: { method: string; url: string }[];
  close(): Promise<void>;
}

/** Starts the host, serving `signingCertificate` (PEM) at any .pem path and answering ConfirmSubscription. */
export async function startSnsLoopback(signingCertificate: string): Promise<SnsLoopback> {
  const dir = mkdtempSync(path.join(tmpdir(), "sns-loopback-"));
  const key = path.join(dir, "tls-key.pem");
  const cert = path.join(dir, "tls-cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${SNS_HOST}`].concat([
      "-addext",
      `subjectAltName=DNS:${SNS_HOST}`,
      "-keyout",
      key,
      "-out",
      cert,
    ]),
    { stdio: "ignore" },
  );
  const requests: { method: string; url: string }[] = [];
  const tunnels: string[] = [];
  const host = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    const url = request.url ?? "/";
    requests.push({ method: request.method ?? "GET", url });
    // A certificate SNS cannot serve right now (its host failing for a while): what the server must not blame on SNS.
    if (url.endsWith(UNAVAILABLE_CERTIFICATE)) return response.writeHead(503).end();
    if (url.endsWith(".pem")) {
      response.writeHead(200, { "content-type": "application/x-pem-file" });
      return response.end(signingCertificate);
    }
    if (url.includes("Action=ConfirmSubscription")) {
      response.writeHead(200, { "content-type": "text/xml" });
      return response.end("<ConfirmSubscriptionResponse><ConfirmSubscriptionResult/></ConfirmSubscriptionResponse>");
    }
    response.writeHead(404).end();
  });
  const proxy = createHttpServer((_request, response) => response.writeHead(405).end());
  proxy.on("connect", (request, socket, head) => {
    tunnels.push(request.url ?? "");
    const upstream = connect((host.address() as AddressInfo).port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  for (const server of [host, proxy]) {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  }
  const trust = path.join(dir, "trust.pem");
  writeFileSync(trust, readFileSync(cert));
  return {
    env: {
      NODE_USE_ENV_PROXY: "1",
      HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      NODE_EXTRA_CA_CERTS: trust,
    },
    tunnels,
    requests,
    async close() {
      for (const server of [proxy, host]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
