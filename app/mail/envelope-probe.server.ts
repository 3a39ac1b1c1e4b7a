/**
 * Whether the relay accepts our sender, asked before a send touches a reader: the greeting, EHLO, STARTTLS when the
 * relay offers it on smtp:// (as Nodemailer does), the login when SMTP_URL has one, `MAIL FROM:<sender>`, then RSET
 * and QUIT. No recipient is named and no message is sent. Every wait is bounded. The answer is judged by the engine's
 * own classifier, so the probe refuses exactly what would stop the send at its first mail.
 */
import { hostname } from "node:os";
import { isIP, connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { classifySmtpError } from "~/mail/classify.server";
import { replyReader } from "~/mail/domain-check/smtp-probe.server";

export type EnvelopeVerdict =
  | { kind: "accepted" }
  /** The relay refused the sending itself: what it said, with what to fix. */
  | { kind: "refused"; reason: string }
  /** No answer to judge (unreachable, a "not now"): the send goes on and waits for the relay as it always does. */
  | { kind: "unknown"; reason: string };

interface Reply {
  code: number;
  text: string;
  lines: string[];
}

class RelayAnswer extends Error {
  constructor(
    readonly responseCode: number,
    readonly response: string,
    readonly command: string,
  ) {
    super(response);
  }
}

/** One SMTP session on a socket: each `ask` writes a command (or nothing) and resolves with the next reply. */
function session(socket: Socket | TLSSocket) {
  let read = replyReader();
  const waiting: ((reply: Reply | Error) => void)[] = [];
  const onData = (chunk: string) => {
    const lines = read(chunk);
    if (!lines) return;
    const last = lines.at(-1) ?? "";
    waiting.shift()?.({ code: Number(last.slice(0, 3)), text: lines.join(" "), lines });
  };
  const onGone = (error?: Error) => {
    for (const wake of waiting.splice(0)) wake(error ?? new Error("the relay closed the connection"));
  };
  socket.setEncoding("latin1");
  socket.on("data", onData);
  socket.on("error", onGone);
  socket.on("close", () => onGone());
  return {
    ask(line: string | null, command: string, expect: number): Promise<Reply> {
      return new Promise((resolve, reject) => {
        waiting.push((reply) => {
          if (reply instanceof Error) return reject(reply);
          if (Math.floor(reply.code / 100) !== expect) return reject(new RelayAnswer(reply.code, reply.text, command));
          resolve(reply);
        });
        if (line !== null) socket.write(`${line}\r\n`);
      });
    },
    /** Stops reading this socket (before STARTTLS hands it to TLS). */
    detach() {
      socket.off("data", onData);
      read = replyReader();
    },
  };
}

const opened = (socket: Socket | TLSSocket, event: "connect" | "secureConnect") =>
  new Promise<void>((resolve, reject) => {
    socket.once(event, () => resolve());
    socket.once("error", reject);
  });

/** Asks the relay at `smtpUrl` whether it takes `sender` (a bare address) as the envelope's sender. */
export async function probeEnvelope(smtpUrl: string, sender: string, timeoutMs = 10_000): Promise<EnvelopeVerdict> {
  const url = new URL(smtpUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const implicitTls = url.protocol === "smtps:";
  const port = url.port ? Number(url.port) : implicitTls ? 465 : 587;
  // TLS names a server only by its host name (SNI never carries an address).
  const servername = isIP(host) ? undefined : host;
  let socket: Socket | TLSSocket = implicitTls ? tlsConnect({ host, port, servername }) : tcpConnect({ host, port });
  const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  try {
    await opened(socket, implicitTls ? "secureConnect" : "connect");
    let smtp = session(socket);
    await smtp.ask(null, "CONN", 2);
    const name = hostname() || "localhost";
    let ehlo = await smtp.ask(`EHLO ${name}`, "EHLO", 2);
    if (!implicitTls && ehlo.lines.some((line) => /^250[- ]STARTTLS\b/i.test(line))) {
      await smtp.ask("STARTTLS", "STARTTLS", 2);
      smtp.detach();
      socket = tlsConnect({ socket, servername });
      await opened(socket, "secureConnect");
      smtp = session(socket);
      ehlo = await smtp.ask(`EHLO ${name}`, "EHLO", 2);
    }
    const auth = ehlo.lines.find((line) => /^250[- ]AUTH[ =]/i.test(line))?.toUpperCase() ?? "";
    if (url.username && auth) {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      if (/\bPLAIN\b/.test(auth) || !/\bLOGIN\b/.test(auth)) {
        await smtp.ask(`AUTH PLAIN ${Buffer.from(`\0${user}\0${password}`).toString("base64")}`, "AUTH PLAIN", 2);
      } else {
        await smtp.ask("AUTH LOGIN", "AUTH LOGIN", 3);
        await smtp.ask(Buffer.from(user).toString("base64"), "AUTH LOGIN", 3);
        await smtp.ask(Buffer.from(password).toString("base64"), "AUTH LOGIN", 2);
      }
    }
    await smtp.ask(`MAIL FROM:<${sender}>`, "MAIL FROM", 2);
    await smtp.ask("RSET", "RSET", 2);
    socket.write("QUIT\r\n");
    return { kind: "accepted" };
  } catch (error) {
    const verdict = classifySmtpError(error);
    const reason = verdict.reason;
    return verdict.kind === "stop" ? { kind: "refused", reason } : { kind: "unknown", reason };
  } finally {
    clearTimeout(timer);
    socket.end();
    setTimeout(() => socket.destroy(), 1_000).unref();
  }
}
