// The relay's TLS as the sender will meet it: a plain connection, its greeting, one EHLO, then STARTTLS and the
// handshake when the relay offers it (or the handshake at once for smtps://), and QUIT. Nothing is sent but those
// commands (no credentials), and the whole exchange is bounded: a relay that stalls is said to have stalled. The
// certificate is judged as Nodemailer will judge it (its chain, and the name or address SMTP_URL connects to), so a
// certificate the sender would refuse is named here rather than in every failed mail.
import { connect, type Socket } from "node:net";
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from "node:tls";
import type { CertificateReport } from "~/mail/domain-check/certificate";

export const PROBE_TIMEOUT_MS = 5_000;

export type ProbeResult =
  | { tls: "none"; greeting: string }
  | { tls: "starttls" | "implicit"; certificate: CertificateReport }
  | { error: string };

export interface ProbeTarget {
  /** The address to connect to. */
  address: string;
  port: number;
  /** The host as SMTP_URL names it: the certificate must be for it (a name, or an address). */
  host: string;
  /** smtps://: TLS from the first byte. */
  implicitTls: boolean;
  /** The certificate authorities to trust; Node's own by default (as the sender's). */
  ca?: string | undefined;
}

/** Reads SMTP replies (a reply ends at a line `NNN ` after any `NNN-` lines). */
export function replyReader() {
  let buffer = "";
  return (chunk: string): string[] | null => {
    buffer += chunk;
    const lines = buffer.split(/\r?\n/);
    const last = lines.findIndex((line) => /^\d{3}(?: |$)/.test(line));
    if (last < 0) return null;
    const reply = lines.slice(0, last + 1);
    buffer = lines.slice(last + 1).join("\r\n");
    return reply;
  };
}

const nameOf = (fields: PeerCertificate["subject"] | undefined): string => {
  const name: string | string[] | undefined = fields ? (fields.CN ?? fields.O) : undefined;
  return Array.isArray(name) ? name.join(", ") : (name ?? "");
};

function reportOf(socket: TLSSocket, host: string): CertificateReport {
  const cert = socket.getPeerCertificate();
  const chainError = socket.authorized ? null : String(socket.authorizationError ?? "UNKNOWN");
  const identityError = cert.subject ? checkServerIdentity(host, cert) : new Error("no certificate");
  return {
    subject: nameOf(cert.subject),
    issuer: nameOf(cert.issuer),
    names: (cert.subjectaltname ?? "")
      .replace(/(DNS|IP Address):/g, "")
      .split(/,\s*/)
      .filter(Boolean),
    validTo: cert.valid_to ?? "",
    chainError,
    wrongName: identityError !== undefined,
  };
}

export function probeRelayTls(target: ProbeTarget, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  const { address, port, host } = target;
  const where = `${address}:${port}`;
  return new Promise((resolve) => {
    let done = false;
    let socket: Socket = connect({ host: address, port });
    const finish = (result: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
      socket.end();
      setTimeout(() => socket.destroy(), 1_000).unref();
    };
    const timer = setTimeout(() => {
      finish({ error: `no answer from ${where} within ${timeoutMs / 1000} s` });
      socket.destroy();
    }, timeoutMs);
    const handshake = (plain?: Socket) => {
      const secure = tlsConnect({
        ...(plain ? { socket: plain } : { host: address, port }),
        // As the sender: SNI with a name, none with an address; judged below rather than refused on the spot.
        ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }),
        rejectUnauthorized: false,
        ...(target.ca ? { ca: target.ca } : {}),
      });
      socket = secure;
      secure.on("error", (error: NodeJS.ErrnoException) =>
        finish({ error: `the TLS handshake with ${where} failed (${error.code ?? error.message})` }),
      );
      secure.once("secureConnect", () => {
        const certificate = reportOf(secure, host);
        secure.write("QUIT\r\n");
        finish({ tls: plain ? "starttls" : "implicit", certificate });
      });
    };
    if (target.implicitTls) {
      socket.destroy();
      handshake();
      return;
    }
    const read = replyReader();
    let stage: "greeting" | "ehlo" | "starttls" = "greeting";
    let greeting = "";
    socket.setEncoding("latin1");
    socket.on("error", (error: NodeJS.ErrnoException) => {
      finish({ error: `cannot reach ${where} (${error.code ?? error.message})` });
    });
    socket.on("close", () => finish({ error: `${where} closed the connection` }));
    const onData = (chunk: string) => {
      const reply = read(chunk);
      if (!reply) return;
      if (stage === "greeting") {
        greeting = reply.join(" ").slice(0, 200);
        if (!reply.at(-1)?.startsWith("220")) return finish({ error: `the relay greets with "${greeting}"` });
        stage = "ehlo";
        socket.write("EHLO domain-check.invalid\r\n");
      } else if (stage === "ehlo") {
        if (!reply.at(-1)?.startsWith("250"))
          return finish({ error: `the relay answers EHLO with "${reply.join(" ").slice(0, 200)}"` });
        if (!reply.some((line) => /^250[- ]STARTTLS\b/i.test(line))) {
          socket.write("QUIT\r\n");
          return finish({ tls: "none", greeting });
        }
        stage = "starttls";
        socket.write("STARTTLS\r\n");
      } else {
        if (!reply.at(-1)?.startsWith("220"))
          return finish({ error: `the relay answers STARTTLS with "${reply.join(" ").slice(0, 200)}"` });
        const plain = socket;
        plain.removeListener("data", onData);
        plain.removeAllListeners("close");
        handshake(plain);
      }
    };
    socket.on("data", onData);
  });
}
