/**
 * A real SMTP server on loopback for tests (smtp-server, from the Nodemailer project), recording every mail it
 * accepts, parsed (mailparser). It can be scripted to behave like a relay in trouble:
 *
 *   throttle(n, code)      the next n recipients are answered with a 4xx (default 451) at RCPT TO
 *   throttleAddress(a, n)  the same, for one address only
 *   reject(address)        that address is refused with a 5xx (default 550) at RCPT TO, every time
 *   refuseAuth(true)       every login is refused with 535
 *   refuseSender(true)     MAIL FROM is refused with 553
 *   refuseGreeting(code)   every connection is greeted with this code (421: busy, try later) and closed; null ends it
 *   refuseEveryone(c, t)   every RCPT TO is answered with this code and text (a relay that will not relay); null ends it
 *   refuseData(c, t)       every message is answered with this code and text after its final dot (Amazon SES's
 *                          sandbox, a size limit); null ends it
 *   down() / up()          stop listening (connections refused) and listen again on the same port
 *   cutAfterData(a, n)     the next n mails to that address are received whole, then the connection is cut before the
 *                          answer to the final dot (the relay has the mail, the client never hears so)
 *   stallAfterData(a, n)   the same, but the answer never comes and the connection stays open (until the client
 *                          gives up)
 *   stall(afterGreeting)   still accept connections on the port, but never answer (or greet, then never answer)
 *                          until up(); `stalled` records when each such connection opened and closed
 *
 * Every wait (waitForMails) is bounded in time.
 */
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
  at: number;
}

/** A connection to a stalled relay: when it was opened, and when the client gave up on it (closed it). */
export interface StalledConnection {
  openedAt: number;
  closedAt: number | null;
}

export interface TestSmtpServer {
  readonly port: number;
  /** The URL a client uses: `smtp://user:password@127.0.0.1:port` (with these credentials when given). */
  url(user?: string, password?: string): string;
  readonly mails: ReceivedMail[];
  /** Every RCPT TO answered with an error so far: { address, code }. */
  readonly refusals: { address: string; code: number }[];
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  throttle(count: number, code?: number): void;
  throttleAddress(address: string, count: number, code?: number): void;
  reject(address: string, code?: number, text?: string): void;
  refuseAuth(on: boolean): void;
  refuseSender(on: boolean): void;
  refuseGreeting(code: number | null, text?: string): void;
  refuseEveryone(code: number | null, text?: string): void;
  refuseData(code: number | null, text?: string): void;
  down(): Promise<void>;
  /** Stops answering without refusing: the port accepts connections and says nothing (or only its greeting). */
  stall(afterGreeting?: boolean): Promise<void>;
  cutAfterData(address: string, count?: number): void;
  stallAfterData(address: string, count?: number): void;
  readonly stalled: StalledConnection[];
  up(): Promise<void>;
  close(): Promise<void>;
}

const smtpError = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

/**
 * `startTls`: offer STARTTLS in the EHLO answer, as most relays do, with `tls`'s key and certificate (PEM) or
 * smtp-server's own self-signed one.
 */
export async function startSmtpServer(
  options: { port?: number; startTls?: boolean; tls?: { key: string; cert: string } } = {},
): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const refusals: { address: string; code: number }[] = [];
  const rejected = new Map<string, { code: number; text: string }>();
  const throttledAddresses = new Map<string, { count: number; code: number }>();
  let throttled = { count: 0, code: 451 };
  let authRefused = false;
  let senderRefused = false;
  let greetingRefused: { code: number; text: string } | null = null;
  let everyoneRefused: { code: number; text: string } | null = null;
  let dataRefused: { code: number; text: string } | null = null;
  let waiters: (() => void)[] = [];
  const afterData = new Map<string, { count: number; how: "cut" | "stall" }>();

  const settings: SMTPServerOptions = {
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: options.startTls ? [] : ["STARTTLS"],
    ...(options.tls ?? {}),
    logger: false,
    // down() must drop open (pooled) connections at once, as a relay that goes away does.
    closeTimeout: 100,
    size: 1024 * 1024,
    onConnect(_session, callback) {
      if (greetingRefused) return callback(smtpError(greetingRefused.code, greetingRefused.text));
      callback();
    },
    onAuth(auth, _session, callback) {
      if (authRefused) return callback(smtpError(535, "5.7.8 Authentication credentials invalid"));
      callback(null, { user: auth.username });
    },
    onMailFrom(_address, _session, callback) {
      if (senderRefused) return callback(smtpError(553, "5.7.1 Sender address rejected: not owned by user"));
      callback();
    },
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      const refuse = (code: number, text: string) => {
        refusals.push({ address: to, code });
        callback(smtpError(code, text));
      };
      if (everyoneRefused) return refuse(everyoneRefused.code, everyoneRefused.text);
      const rejection = rejected.get(to);
      if (rejection) return refuse(rejection.code, rejection.text);
      const forAddress = throttledAddresses.get(to);
      if (forAddress && forAddress.count > 0) {
        forAddress.count -= 1;
        return refuse(forAddress.code, "4.7.1 Throttling: try again later");
      }
      if (throttled.count > 0) {
        throttled.count -= 1;
        return refuse(throttled.code, "4.7.0 Too many messages, slow down");
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        if (dataRefused) return callback(smtpError(dataRefused.code, dataRefused.text));
        simpleParser(raw).then(
          (parsed) => {
            mails.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              raw,
              parsed,
              at: Date.now(),
            });
            for (const wake of waiters) wake();
            waiters = [];
            const to = session.envelope.rcptTo[0]?.address.toLowerCase() ?? "";
            const trouble = afterData.get(to);
            if (trouble && trouble.count > 0) {
              trouble.count -= 1;
              // The stall never answers; the cut drops this session's socket before answering.
              if (trouble.how === "stall") return;
              for (const connection of server.connections) {
                const open = connection as unknown as { session: unknown; _socket: Socket };
                if (open.session === session) open._socket.destroy();
              }
              return;
            }
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  };

  let server = new SMTPServer(settings);
  const listen = (target: SMTPServer, port: number) =>
    new Promise<number>((resolve, reject) => {
      // A client that vanishes in the middle of a mail (a sender killed with -9) resets its connection; smtp-server
      // passes that on as the server's error, which a relay logs and goes on from, as this one does.
      target.on("error", () => {});
      target.server.once("error", reject);
      target.listen(port, "127.0.0.1", () => resolve((target.server.address() as AddressInfo).port));
    });
  const port = await listen(server, options.port ?? 0);
  let listening = true;
  const shut = () =>
    new Promise<void>((resolve) => {
      listening = false;
      server.close(() => resolve());
    });

  // The stalled relay: a bare TCP listener on the same port, holding every connection open and silent.
  const stalled: StalledConnection[] = [];
  let staller: { server: Server; sockets: Set<Socket> } | null = null;
  const unstall = () =>
    new Promise<void>((resolve) => {
      if (!staller) return resolve();
      const { server: silent, sockets } = staller;
      staller = null;
      for (const socket of sockets) socket.destroy();
      silent.close(() => resolve());
    });

  return {
    port,
    mails,
    refusals,
    url: (user, password) =>
      user
        ? `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password ?? "")}@127.0.0.1:${port}`
        : `smtp://127.0.0.1:${port}`,
    async waitForMails(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`Expected ${count} mails, received ${mails.length} in ${timeoutMs} ms.`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 500));
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
      return mails.slice(0, count);
    },
    throttle: (count, code = 451) => void (throttled = { count, code }),
    throttleAddress: (address, count, code = 451) =>
      void throttledAddresses.set(address.toLowerCase(), { count, code }),
    reject: (address, code = 550, text = "5.1.1 Recipient address rejected: User unknown") =>
      void rejected.set(address.toLowerCase(), { code, text }),
    refuseAuth: (on) => void (authRefused = on),
    refuseSender: (on) => void (senderRefused = on),
    refuseGreeting: (code, text = "4.3.2 Too many connections, try again later") =>
      void (greetingRefused = code === null ? null : { code, text }),
    refuseEveryone: (code, text = "5.7.1 Relay access denied") =>
      void (everyoneRefused = code === null ? null : { code, text }),
    refuseData: (code, text = "Message rejected") => void (dataRefused = code === null ? null : { code, text }),
    down: shut,
    cutAfterData: (address, count = 1) => void afterData.set(address.toLowerCase(), { count, how: "cut" }),
    stallAfterData: (address, count = 1) => void afterData.set(address.toLowerCase(), { count, how: "stall" }),
    stalled,
    async stall(afterGreeting = false) {
      if (listening) await shut();
      if (staller) return;
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        const connection: StalledConnection = { openedAt: Date.now(), closedAt: null };
        stalled.push(connection);
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => {
          connection.closedAt = Date.now();
          sockets.delete(socket);
        });
        if (afterGreeting) socket.write("220 127.0.0.1 ESMTP ready\r\n");
        // Whatever the client says next is read and never answered.
        socket.resume();
      });
      await new Promise<void>((resolve, reject) => {
        silent.once("error", reject);
        silent.listen(port, "127.0.0.1", () => resolve());
      });
      staller = { server: silent, sockets };
    },
    async up() {
      await unstall();
      if (listening) return;
      server = new SMTPServer(settings);
      await listen(server, port);
      listening = true;
    },
    close: async () => {
      await unstall();
      if (listening) await shut();
    },
  };
}
