/**
 * What an SMTP attempt's error means for the outbox (pure: the error's fields in, a verdict out).
 *
 * - "retry": the relay said "not now" (any 4xx, among them 421, 450, 451, 454 throttling) or could not be reached
 *   (refused, reset, timed out, DNS): the same mail goes again later, with backoff (see retryDelayMs).
 * - "failed": a 5xx about this mail or its recipient (RCPT TO, DATA): not retried; the relay's words are kept, and
 *   whose fault it is (relay-answer.ts): only a reader's mailbox is ever suppressed for it.
 * - "uncertain": the whole message went to the relay and no answer came (the connection cut after the final dot, or a
 *   stall there until the timeout): the relay may have it, so it is not sent again unless the owner asks.
 * - "stop": a problem with the whole sending, not this mail: the login was refused (530, 534, 535, 538, EAUTH), the
 *   sender was refused (5xx to MAIL FROM), the relay turned us away at the greeting, or its words say the account
 *   may not send (not relaying for us, Amazon SES's sandbox or quota, DMARC, the message's size). Sending pauses; no
 *   mail counts as failed, and the reason says what to fix.
 */
import { accountWideFix, answerKind, enhancedCodeOf, type Fault, faultOfCode } from "~/mail/relay-answer";
import { oneLine } from "~/utils/log.server";

/**
 * `recipient`: the relay refused this mail at RCPT or DATA; `fault` says whose the refusal is (relay-answer.ts): only
 * a "mailbox" one suppresses, an "unknown" one is judged by repetition (breaker.server.ts). `relayAnswered`: a 4xx
 * from the relay (not a network failure). `answer`: the answer's kind, to tell readers refused "the same way".
 */
export type SmtpVerdict =
  | { kind: "retry"; reason: string; relayAnswered?: boolean; fault?: Fault; answer?: string }
  | { kind: "failed"; reason: string; recipient?: boolean; fault?: Fault; answer?: string }
  | { kind: "stop"; reason: string }
  | { kind: "uncertain"; reason: string };

/** The fields Nodemailer puts on its errors that matter here. */
interface SmtpErrorFields {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  command?: unknown;
  message?: unknown;
  originalCode?: unknown;
  library?: unknown;
  /** Set by the transport when the error came after the whole message was handed over, with no answer to it. */
  handedOver?: unknown;
}

const AUTH_REFUSED = new Set([530, 534, 535, 538]);
const AUTH_CODES = new Set(["EAUTH", "ENOAUTH", "EOAUTH2"]);
/** Errors about this message alone, met before any relay answered (e.g. an address Nodemailer cannot use). */
const MESSAGE_CODES = new Set(["EENVELOPE", "EMESSAGE", "EMAXRECIPIENTS"]);
/** Commands that open a session, before any mail: their answers concern the relay, whoever the mail is for. */
const SESSION_COMMANDS = new Set(["EHLO", "HELO", "LHLO", "STARTTLS"]);

/** The relay's words (or the error's message), one bounded line, for the outbox and the log. */
export function smtpReason(error: unknown): string {
  const fields = (typeof error === "object" && error !== null ? error : {}) as SmtpErrorFields;
  const text =
    typeof fields.response === "string" && fields.response
      ? fields.response
      : typeof fields.message === "string"
        ? fields.message
        : String(error);
  return oneLine(text, 500);
}

/** A TLS handshake that failed (wrong protocol on the port, a certificate refused): no retry mends the settings. */
function tlsFailed(fields: SmtpErrorFields): boolean {
  const code = typeof fields.code === "string" ? fields.code : "";
  const original = typeof fields.originalCode === "string" ? fields.originalCode : "";
  return (
    // Nodemailer's ETLS also covers a connection closed during STARTTLS, which may pass: only a failed handshake stops.
    (code === "ETLS" && typeof fields.message === "string" && fields.message.startsWith("Error initiating TLS")) ||
    original.startsWith("ERR_SSL_") ||
    original.startsWith("ERR_TLS_") ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(original) ||
    fields.library === "SSL routines"
  );
}

export function classifySmtpError(error: unknown): SmtpVerdict {
  const fields = (typeof error === "object" && error !== null ? error : {}) as SmtpErrorFields;
  const reason = smtpReason(error);
  const status = typeof fields.responseCode === "number" ? fields.responseCode : undefined;
  const code = typeof fields.code === "string" ? fields.code : "";
  const command = typeof fields.command === "string" ? fields.command.toUpperCase() : "";
  if (tlsFailed(fields)) {
    // A refused certificate and a wrong port need different fixes; an own Postfix's self-signed one is the usual first.
    const original = typeof fields.originalCode === "string" ? fields.originalCode : "";
    const certificate = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(original) || /certificate/i.test(reason);
    return {
      kind: "stop",
      reason: certificate
        ? `the relay's TLS certificate was refused (${reason}): give the relay a certificate for the host SMTP_URL ` +
          "names, or, for your own Postfix with a self-signed one, add ?tls.rejectUnauthorized=false to SMTP_URL " +
          '(docs/newsletter.md, "Your own Postfix"); `npm run newsletter -- check` names the certificate'
        : `the TLS handshake with the relay failed (${reason}): check SMTP_URL (smtps:// is for a port that speaks ` +
          "TLS at once, usually 465; smtp:// upgrades with STARTTLS, usually on 587)",
    };
  }
  if (fields.handedOver === true) {
    return { kind: "uncertain", reason: `no answer after the whole message was handed over: ${reason}` };
  }

  if (AUTH_CODES.has(code) || (status !== undefined && AUTH_REFUSED.has(status)) || command.startsWith("AUTH")) {
    return { kind: "stop", reason };
  }
  // The greeting and the session's opening (EHLO, STARTTLS) are about the relay, not this reader: a 421 there is the
  // relay too busy for anyone, so it is said as such and never counts towards giving a reader up.
  if (command === "CONN" && status !== undefined && status >= 400) {
    const greeting = `the relay turned the connection away at its greeting: ${reason}`;
    return status < 500 ? { kind: "retry", reason: greeting } : { kind: "stop", reason: greeting };
  }
  if (SESSION_COMMANDS.has(command) && status !== undefined && status >= 400 && status < 500) {
    return { kind: "retry", reason };
  }
  if (status !== undefined && status >= 400) {
    const fix = accountWideFix(reason);
    // The account's quota, the sandbox, a relay that will not relay: no retry and no other reader does better.
    if (fix) return { kind: "stop", reason: `${reason}: ${fix}` };
  }
  const answer = status === undefined ? undefined : answerKind(status, command, reason);
  // MAIL FROM and DATA are the relay's answer about the sending and the message, not about one reader's mailbox,
  // unless its enhanced code says so.
  const fault = (): Fault => {
    const named = faultOfCode(enhancedCodeOf(reason));
    return named === "unknown" && !command.startsWith("RCPT") ? "relay" : named;
  };
  if (status !== undefined && status >= 400 && status < 500) {
    return { kind: "retry", reason, relayAnswered: true, fault: fault(), ...(answer ? { answer } : {}) };
  }
  // 503 is "bad sequence of commands": a session problem, and a new connection does better.
  if (status === 503) return { kind: "retry", reason };
  if (status !== undefined && status >= 500) {
    if (command.startsWith("RCPT") || command === "DATA") {
      return { kind: "failed", reason, recipient: true, fault: fault(), ...(answer ? { answer } : {}) };
    }
    // MAIL FROM, the greeting, EHLO, STARTTLS: the relay refuses us, whatever the mail.
    return { kind: "stop", reason };
  }
  if (MESSAGE_CODES.has(code)) return { kind: "failed", reason };
  // Connection refused or reset, a timeout, DNS, TLS, anything without a relay's answer: try again later.
  return { kind: "retry", reason };
}

/** Retries never more than 5 minutes apart. */
export const MAX_RETRY_MS = 5 * 60_000;

/**
 * How long to wait before attempt number `attempts + 1`, after `attempts` failed ones (1 or more): the first retry
 * after `firstRetryMs` (MAIL_FIRST_RETRY_SECONDS), then doubling.
 */
export function retryDelayMs(attempts: number, firstRetryMs: number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(firstRetryMs * 2 ** exponent, MAX_RETRY_MS);
}
