/**
 * The one way out for mail: `createMailTransport(mode, from)` gives a MailTransport that sends a composed message
 * through the relay (Nodemailer SMTP, pooled connections) or writes it as an `.eml` file (capture mode).
 *
 * `send` resolves with the relay's answer (e.g. "250 2.0.0 Ok: queued") or the captured file's path, and rejects with
 * Nodemailer's error otherwise: classify it with classifySmtpError (app/mail/classify.server.ts). Every wait is
 * bounded (connection, greeting, socket), so a stalled relay fails an attempt instead of holding it forever.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import nodemailer from "nodemailer";
import { dkimKeyOf, nodemailerDkim } from "~/mail/dkim.server";
import { type HeaderValue, withOneLineFields } from "~/mail/one-line-headers";
import type { MailMode } from "~/mail/settings.server";
import { env } from "~/utils/env.server";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra header fields; Nodemailer folds and encodes them, except List-Unsubscribe(-Post): one line each. */
  headers?: Record<string, HeaderValue>;
  /** Where replies go (updates only: MAIL_REPLY_TO). */
  replyTo?: string;
  /** A Message-ID of your own (`<id@domain>`); Nodemailer makes one otherwise. */
  messageId?: string;
}

export interface MailTransport {
  readonly kind: "smtp" | "capture";
  /** Sends one message; resolves with the relay's answer or the captured file, rejects with the transport's error. */
  send(message: MailMessage): Promise<string>;
  /** Closes pooled connections; sends after this open new ones. */
  close(): void;
}

/** Upper bounds of one attempt's waits: a relay that stops answering fails the attempt, it never holds the outbox. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export interface TransportOptions {
  /** Simultaneous relay connections (default 1). */
  maxConnections?: number;
  /** How long a silent relay is waited for mid-session (default SMTP_TIMEOUTS.socketTimeout; tests shorten it). */
  socketTimeoutMs?: number;
}

/** The data field through which one send learns that Nodemailer read its whole message into the DATA stream. */
const HANDOVER = "portfolioHandover";

/**
 * Marks an error that came after the whole message went to the relay with no answer to it (the connection cut after
 * the final dot, or a stall there): the relay may have it, so the attempt is uncertain, never "try again".
 */
function markHandedOver(error: unknown, handedOver: boolean): unknown {
  if (!handedOver || typeof error !== "object" || error === null) return error;
  // A 4xx/5xx answer to the message is an answer: the relay did not take it.
  if (typeof (error as { responseCode?: unknown }).responseCode === "number") return error;
  return Object.assign(error, { handedOver: true });
}

/** DKIM_* (app/mail/dkim.server.ts): every mail through the transport signed, or none when the owner signs nothing. */
function signing() {
  const key = dkimKeyOf(env);
  return key ? { dkim: nodemailerDkim(key) } : {};
}

const outgoing = (from: string, message: MailMessage) => ({
  from,
  ...message,
  ...(message.headers ? { headers: withOneLineFields(message.headers) } : {}),
});

export function createMailTransport(mode: MailMode, from: string, options: TransportOptions = {}): MailTransport {
  if (mode.kind === "off") throw new Error("Mail is off (no SMTP_URL): nothing can be sent.");
  if (mode.kind === "capture") return captureTransport(mode.folder, from);
  const mailer = nodemailer.createTransport({
    ...signing(),
    url: mode.url,
    pool: true,
    maxConnections: options.maxConnections ?? 1,
    // Nodemailer's own rate limiter would queue in memory; the outbox paces instead.
    ...SMTP_TIMEOUTS,
    socketTimeout: options.socketTimeoutMs ?? SMTP_TIMEOUTS.socketTimeout,
    // Never the credentials or the message in a log: Nodemailer logs nothing unless asked.
    logger: false,
    debug: false,
  });
  // Nodemailer pipes the message only once the relay said 354 to DATA: its end means the relay was handed all of it.
  mailer.use("stream", (mail, done) => {
    const state = (mail.data as Record<string, unknown>)[HANDOVER] as { handedOver: boolean } | undefined;
    if (state) {
      mail.message.processFunc((input: Readable) => input.once("end", () => (state.handedOver = true)));
    }
    done();
  });
  return {
    kind: "smtp",
    async send(message) {
      const state = { handedOver: false };
      const data = { ...outgoing(from, message), [HANDOVER]: state } as ReturnType<typeof outgoing>;
      const info = await mailer.sendMail(data).catch((error: unknown) => {
        throw markHandedOver(error, state.handedOver);
      });
      // A relay that accepted the message for no recipient did not take it (Nodemailer resolves then).
      if (info.rejected.length > 0 && info.accepted.length === 0) {
        const first = info.rejectedErrors?.[0];
        throw first ?? Object.assign(new Error("The relay refused the recipient."), { code: "EENVELOPE" });
      }
      return info.response;
    },
    close: () => mailer.close(),
  };
}

/** Writes each message as `<time>-<random>.eml`, whole or not at all (a temporary name, then a rename). */
function captureTransport(folder: string, from: string): MailTransport {
  const composer = nodemailer.createTransport({ ...signing(), streamTransport: true, buffer: true, newline: "unix" });
  let made = false;
  return {
    kind: "capture",
    async send(message) {
      if (!made) {
        mkdirSync(folder, { recursive: true });
        made = true;
      }
      const info = await composer.sendMail(outgoing(from, message));
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`;
      const target = path.join(folder, name);
      await writeFile(`${target}.tmp`, info.message as Buffer);
      await rename(`${target}.tmp`, target);
      return `captured ${target}`;
    },
    close: () => composer.close(),
  };
}
