// Whether the relay offers STARTTLS: a plain connection, its greeting, one EHLO, QUIT. Nothing is sent but those
// two commands (no credentials), and the whole exchange is bounded: a relay that stalls is said to have stalled.
import { connect } from "node:net";

export const PROBE_TIMEOUT_MS = 5_000;

export type ProbeResult = { startTls: boolean; greeting: string } | { error: string };

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

export function probeStartTls(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const read = replyReader();
    let stage: "greeting" | "ehlo" | "done" = "greeting";
    let greeting = "";
    const finish = (result: ProbeResult) => {
      if (stage === "done") return;
      stage = "done";
      clearTimeout(timer);
      resolve(result);
      socket.end();
      setTimeout(() => socket.destroy(), 1_000).unref();
    };
    const timer = setTimeout(() => {
      finish({ error: `no answer from ${host}:${port} within ${timeoutMs / 1000} s` });
      socket.destroy();
    }, timeoutMs);
    socket.setEncoding("latin1");
    socket.on("error", (error: NodeJS.ErrnoException) => {
      finish({ error: `cannot reach ${host}:${port} (${error.code ?? error.message})` });
    });
    socket.on("close", () => finish({ error: `${host}:${port} closed the connection` }));
    socket.on("data", (chunk: string) => {
      const reply = read(chunk);
      if (!reply) return;
      if (stage === "greeting") {
        greeting = reply.join(" ").slice(0, 200);
        if (!reply.at(-1)?.startsWith("220")) return finish({ error: `the relay greets with "${greeting}"` });
        stage = "ehlo";
        socket.write("EHLO domain-check.invalid\r\n");
      } else if (stage === "ehlo") {
        if (!reply.at(-1)?.startsWith("250"))
          return finish({ error: `the relay answers EHLO with "${reply.join(" ")}"` });
        socket.write("QUIT\r\n");
        finish({ startTls: reply.some((line) => /^250[- ]STARTTLS\b/i.test(line)), greeting });
      }
    });
  });
}
