// A non-ASCII MAIL_FROM domain goes out punycoded in the envelope. Nodemailer 10 does this itself: this
// test keeps it so through upgrades, on the wire (smtp-server would show the domain decoded back to Unicode).
import { type AddressInfo, createServer, type Server } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMailTransport } from "~/mail/transport.server";

// A bare SMTP listener that keeps the commands as they came on the wire (smtp-server turns punycode back to Unicode).
let relay: Server;
let commands: string[];
let port: number;
beforeEach(async () => {
  commands = [];
  relay = createServer((socket) => {
    let buffer = "";
    let inData = false;
    socket.write("220 wire ESMTP\r\n");
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            socket.write("250 2.0.0 queued\r\n");
          }
          continue;
        }
        commands.push(line);
        if (/^DATA/i.test(line)) {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (/^QUIT/i.test(line)) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  port = (relay.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => relay.close(() => resolve()));
});

describe("a non-ASCII MAIL_FROM domain", () => {
  it("reaches the relay punycoded", async () => {
    const url = `smtp://127.0.0.1:${port}`;
    const transport = createMailTransport({ kind: "smtp", url }, "Alex <updates@exämple.com>");
    try {
      await transport.send({ to: "reader@example.org", subject: "Hi", text: "Hi", html: "<p>Hi</p>" });
    } finally {
      transport.close();
    }
    expect(commands.find((line) => /^MAIL FROM/i.test(line))).toMatch(/^MAIL FROM:<updates@xn--exmple-cua\.com>/);
    expect(commands.find((line) => /^RCPT TO/i.test(line))).toBe("RCPT TO:<reader@example.org>");
  });
});
