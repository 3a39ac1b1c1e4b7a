/**
 * Whose fault a refusal is, over a table of answers real relays give (the words as Postfix, Exim, Gmail, Microsoft
 * 365, Amazon SES, Mailgun and SendGrid document or send them): a reader's mailbox, the relay (stop now, with what to
 * fix), or unknown until repetition tells (the breaker).
 */
import { describe, expect, it } from "vitest";
import { classifySmtpError } from "~/mail/classify.server";
import { accountWideFix, enhancedCodeOf, faultOfCode } from "~/mail/relay-answer";

const answer = (command: string, response: string) =>
  Object.assign(new Error(`Message failed: ${response}`), {
    code: "EENVELOPE",
    responseCode: Number(response.slice(0, 3)),
    command,
    response,
  });

type Expected = { kind: "failed" | "retry" | "stop"; fault?: "mailbox" | "relay" | "unknown"; fix?: RegExp };

const TABLE: [string, string, Expected][] = [
  // One reader's mailbox: suppressed (5xx) or counted as a soft bounce after 72 hours (4xx).
  [
    "RCPT TO",
    "550 5.1.1 <ada@example.org>: Recipient address rejected: User unknown in local recipient table",
    { kind: "failed", fault: "mailbox" },
  ],
  [
    "RCPT TO",
    "550-5.1.1 The email account that you tried to reach does not exist.",
    { kind: "failed", fault: "mailbox" },
  ],
  [
    "RCPT TO",
    "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup",
    { kind: "failed", fault: "mailbox" },
  ],
  [
    "RCPT TO",
    "552 5.2.2 <ada@example.org>: Recipient address rejected: Mailbox full",
    { kind: "failed", fault: "mailbox" },
  ],
  ["RCPT TO", "550 5.2.1 The email account that you tried to reach is disabled.", { kind: "failed", fault: "mailbox" }],
  [
    "RCPT TO",
    "452 4.2.2 The email account that you tried to reach is over quota.",
    { kind: "retry", fault: "mailbox" },
  ],
  // A full inbox's "quota exceeded" is that reader's, not our account's quota.
  [
    "RCPT TO",
    "552 5.2.2 <ada@example.org>: Recipient address rejected: Mailbox quota exceeded",
    { kind: "failed", fault: "mailbox" },
  ],
  // The relay, the account, the sender or the message: never a reader's fault.
  [
    "RCPT TO",
    "554 5.7.1 <ada@example.org>: Relay access denied",
    { kind: "stop", fix: /SMTP_URL the relay's user and password/ },
  ],
  ["RCPT TO", "550 5.7.1 Relaying denied", { kind: "stop", fix: /user and password/ }],
  [
    "DATA",
    "554 Message rejected: Email address is not verified. The following identities failed the check in region EU-WEST-1: ada@example.org",
    { kind: "stop", fix: /sandbox/ },
  ],
  ["DATA", "454 Throttling failure: Daily message quota exceeded.", { kind: "stop", fix: /quota/ }],
  [
    "DATA",
    "554 Sending suspended for this account. For more information, contact AWS Support.",
    { kind: "stop", fix: /suspended/ },
  ],
  [
    "DATA",
    "550 5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM.",
    { kind: "stop", fix: /newsletter -- check/ },
  ],
  [
    "DATA",
    "550-5.7.26 Unauthenticated email from example.net is not accepted due to domain's DMARC policy.",
    { kind: "stop", fix: /DKIM, SPF or DMARC/ },
  ],
  ["DATA", "552 5.3.4 Message size exceeds fixed limit", { kind: "stop", fix: /larger than the relay accepts/ }],
  ["DATA", "552 5.2.3 Message length exceeds administrative limit", { kind: "stop", fix: /larger/ }],
  [
    "RCPT TO",
    "553 5.1.8 <updates@example.net>: Sender address rejected: Domain not found",
    { kind: "stop", fix: /MAIL_FROM/ },
  ],
  ["MAIL FROM", "553 5.7.1 <updates@example.net>: Sender address rejected: not owned by user", { kind: "stop" }],
  ["RCPT TO", "550 5.4.1 Recipient address rejected: Access denied. AS(201806281)", { kind: "failed", fault: "relay" }],
  [
    "RCPT TO",
    "550 5.7.1 Service unavailable, Client host [203.0.113.9] blocked using Spamhaus",
    { kind: "failed", fault: "relay" },
  ],
  ["DATA", "554 5.6.0 Message contains invalid header", { kind: "failed", fault: "relay" }],
  ["RCPT TO", "451 4.3.0 Mail server temporarily rejected message.", { kind: "retry", fault: "relay" }],
  ["RCPT TO", "421 4.7.0 Try again later, closing connection.", { kind: "retry", fault: "relay" }],
  ["DATA", "451 Temporary local problem - please try later", { kind: "retry", fault: "relay" }],
  // No enhanced code at RCPT: decided by repetition.
  ["RCPT TO", "550 No such user here", { kind: "failed", fault: "unknown" }],
  ["RCPT TO", "451 Requested action aborted: local error in processing", { kind: "retry", fault: "unknown" }],
  // No enhanced code at DATA: about the message, so the relay's.
  ["DATA", "554 Transaction failed", { kind: "failed", fault: "relay" }],
];

describe("whose fault a relay's answer is", () => {
  it.each(TABLE)("%s %s", (command, response, expected) => {
    const verdict = classifySmtpError(answer(command, response));
    expect(verdict.kind).toBe(expected.kind);
    if (expected.fault) expect(verdict).toMatchObject({ fault: expected.fault });
    if (expected.fix) {
      expect(verdict.reason).toMatch(expected.fix);
      // The relay's own words come first, so the owner reads what it said before what to do.
      expect(verdict.reason.startsWith(response.slice(0, 40))).toBe(true);
    }
  });

  it("reads the enhanced code only right after the basic one", () => {
    expect(enhancedCodeOf("550 5.1.1 gone")).toEqual({ cls: 5, subject: 1, detail: 1 });
    expect(enhancedCodeOf("550-5.7.26 DMARC")).toEqual({ cls: 5, subject: 7, detail: 26 });
    expect(enhancedCodeOf("550 user 5.1.1 gone")).toBeNull();
    expect(faultOfCode(null)).toBe("unknown");
    expect(faultOfCode({ cls: 5, subject: 0, detail: 0 })).toBe("unknown");
    expect(accountWideFix("550 5.1.1 User unknown")).toBeNull();
  });
});
