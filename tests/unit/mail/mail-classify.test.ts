import { describe, expect, it } from "vitest";
import { classifySmtpError, MAX_RETRY_MS, retryDelayMs, smtpReason } from "~/mail/classify.server";
import { describeMode, mailModeOf, mailSettingsOf } from "~/mail/settings.server";
import { EnvError, parseEnv } from "~/utils/env.server";

const smtp = (responseCode: number, command: string, response = `${responseCode} words of the relay`) =>
  Object.assign(new Error(`Message failed: ${response}`), { code: "EENVELOPE", responseCode, command, response });

describe("classifySmtpError", () => {
  it.each([421, 450, 451, 452, 454])("retries a %i (the relay says not now)", (code) => {
    expect(classifySmtpError(smtp(code, "RCPT TO")).kind).toBe("retry");
    expect(classifySmtpError(smtp(code, "MAIL FROM")).kind).toBe("retry");
    expect(classifySmtpError(smtp(code, "CONN")).kind).toBe("retry");
  });

  it.each(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNREFUSED", "ETLS"])("retries a %s", (code) => {
    expect(classifySmtpError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:2525"), { code })).kind).toBe(
      "retry",
    );
  });

  it("fails one mail on a 5xx for its recipient or its content, keeping the relay's words", () => {
    const verdict = classifySmtpError(smtp(550, "RCPT TO", "550 5.1.1 <a@b.example>: Recipient address rejected"));
    expect(verdict).toEqual({
      kind: "failed",
      reason: "550 5.1.1 <a@b.example>: Recipient address rejected",
      recipient: true,
      fault: "mailbox",
      answer: "550 5.1",
    });
    expect(classifySmtpError(smtp(554, "DATA"))).toMatchObject({ kind: "failed", recipient: true });
    // An address Nodemailer cannot use fails the mail, but no relay refused the reader.
    expect(classifySmtpError(Object.assign(new Error("bad"), { code: "EENVELOPE" }))).toEqual({
      kind: "failed",
      reason: "bad",
    });
  });

  it("stops the sending on a refused login or sender", () => {
    expect(classifySmtpError(smtp(535, "AUTH PLAIN")).kind).toBe("stop");
    expect(classifySmtpError(Object.assign(new Error("Invalid login"), { code: "EAUTH" })).kind).toBe("stop");
    expect(classifySmtpError(smtp(553, "MAIL FROM")).kind).toBe("stop");
    expect(classifySmtpError(smtp(554, "CONN")).kind).toBe("stop");
    // A 4xx to AUTH is still about the login: retrying each mail would hammer a relay that refuses us.
    expect(classifySmtpError(smtp(454, "AUTH PLAIN")).kind).toBe("stop");
  });

  it("retries a 503 (a session out of step, not a refusal) and anything without an answer", () => {
    expect(classifySmtpError(smtp(503, "RCPT TO")).kind).toBe("retry");
    expect(classifySmtpError("weird").kind).toBe("retry");
  });

  it("keeps a reason to one bounded line", () => {
    const reason = smtpReason(smtp(550, "RCPT TO", `550 first\r\nsecond ${"x".repeat(2000)}`));
    expect(reason).not.toMatch(/[\r\n]/);
    expect(reason.length).toBeLessThanOrEqual(500);
  });
});

describe("retryDelayMs", () => {
  it("starts at 10 s, doubles, and stops at 5 minutes", () => {
    expect([1, 2, 3, 4, 5, 6].map((attempts) => retryDelayMs(attempts, 10_000))).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 300_000,
    ]);
    expect(retryDelayMs(1_000, 10_000)).toBe(MAX_RETRY_MS);
  });
});

describe("mail settings", () => {
  const base = { DATA_DIR: "/srv/data", MAIL_MAX_PER_HOUR: 100, MAIL_RATE_PER_SECOND: 2 } as const;

  it("is off in production without SMTP_URL, capture in development", () => {
    expect(mailModeOf({ ...base, NODE_ENV: "production" })).toEqual({ kind: "off" });
    expect(mailModeOf({ ...base, NODE_ENV: "development" })).toEqual({ kind: "capture", folder: "/srv/data/mail" });
  });

  it("captures into a file:// folder and sends through an smtp(s):// relay", () => {
    expect(mailModeOf({ ...base, NODE_ENV: "production", SMTP_URL: "file:///tmp/mails" })).toEqual({
      kind: "capture",
      folder: "/tmp/mails",
    });
    const settings = mailSettingsOf({
      ...base,
      NODE_ENV: "production",
      SMTP_URL: "smtps://u:secret@relay.example:465",
    });
    expect(settings.mode.kind).toBe("smtp");
    expect(settings.outboxFile).toBe("/srv/data/mail-outbox.sqlite");
    expect(describeMode(settings.mode)).toBe("smtps://relay.example:465");
  });
});

describe("mail env", () => {
  const refused = (source: Record<string, string>) => {
    try {
      parseEnv({ NODE_ENV: "test", ...source });
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      return (error as Error).message;
    }
    throw new Error("expected a refusal");
  };

  it("names SMTP_URL on a bad value without printing it (it holds the password)", () => {
    const message = refused({ SMTP_URL: "http://user:hunter2secret@relay.example", MAIL_FROM: "a@b.example" });
    expect(message).toMatch(/^Invalid environment: SMTP_URL must be smtp:\/\//);
    expect(message).not.toContain("hunter2secret");
  });

  it("wants MAIL_FROM with a relay, in a header's shape", () => {
    expect(refused({ SMTP_URL: "smtp://relay.example:587" })).toMatch(/MAIL_FROM is required/);
    expect(refused({ SMTP_URL: "smtp://relay.example", MAIL_FROM: "Me <me@x.example>\r\nBcc: y@z.example" })).toMatch(
      /MAIL_FROM must be/,
    );
    const env = parseEnv({ NODE_ENV: "test", SMTP_URL: "smtp://relay.example", MAIL_FROM: "Alex <news@x.example>" });
    expect(env).toMatchObject({ MAIL_FROM: "Alex <news@x.example>", MAIL_MAX_PER_HOUR: 100, MAIL_RATE_PER_SECOND: 2 });
  });
});

describe("classifySmtpError on a failed TLS handshake", () => {
  it("stops the sending, saying so, as a refused login does", () => {
    const wrongPort = Object.assign(new Error("SSL routines:tls_validate_record_header:wrong version number"), {
      code: "ESOCKET",
      originalCode: "ERR_SSL_WRONG_VERSION_NUMBER",
      command: "CONN",
      library: "SSL routines",
    });
    const verdict = classifySmtpError(wrongPort);
    expect(verdict.kind).toBe("stop");
    expect(verdict.reason).toMatch(
      /^the TLS handshake with the relay failed \(.*wrong version number\): check SMTP_URL/,
    );
    const starttls = Object.assign(new Error("Error initiating TLS - self-signed certificate"), { code: "ETLS" });
    expect(classifySmtpError(starttls).kind).toBe("stop");
    const badCert = Object.assign(new Error("self-signed certificate"), {
      code: "ESOCKET",
      originalCode: "DEPTH_ZERO_SELF_SIGNED_CERT",
    });
    expect(classifySmtpError(badCert).kind).toBe("stop");
  });

  it("names a refused certificate and the option for an own relay's self-signed one, not the ports", () => {
    const selfSigned = Object.assign(new Error("self-signed certificate"), {
      code: "ESOCKET",
      originalCode: "DEPTH_ZERO_SELF_SIGNED_CERT",
      command: "CONN",
    });
    const { reason } = classifySmtpError(selfSigned);
    expect(reason).toMatch(/^the relay's TLS certificate was refused \(self-signed certificate\)/);
    expect(reason).toContain("?tls.rejectUnauthorized=false");
    expect(reason).not.toContain("465");
  });

  it("an error after the whole message was handed over, with no answer, is uncertain", () => {
    const cut = Object.assign(new Error("Connection closed unexpectedly"), {
      code: "ECONNECTION",
      command: "CONN",
      handedOver: true,
    });
    expect(classifySmtpError(cut)).toEqual({
      kind: "uncertain",
      reason: "no answer after the whole message was handed over: Connection closed unexpectedly",
    });
  });
});

describe("classifySmtpError at the greeting", () => {
  // As Nodemailer reports a greeting other than 220: EPROTOCOL, the relay's line in `response`, command CONN.
  const greeting = (line: string) =>
    Object.assign(new Error(`Invalid greeting. response=${line}: ${line}`), {
      code: "EPROTOCOL",
      responseCode: Number(line.slice(0, 3)),
      response: line,
      command: "CONN",
    });

  it("a 421 is a wait in the relay's own words, never counted against the reader", () => {
    expect(classifySmtpError(greeting("421 4.3.2 Too many connections, try again later"))).toEqual({
      kind: "retry",
      reason: "the relay turned the connection away at its greeting: 421 4.3.2 Too many connections, try again later",
    });
    expect(classifySmtpError(smtp(421, "EHLO"))).toEqual({ kind: "retry", reason: "421 words of the relay" });
    // A 4xx about the mail itself still counts towards giving up after 72 hours.
    expect(classifySmtpError(smtp(452, "RCPT TO"))).toMatchObject({ kind: "retry", relayAnswered: true });
  });

  it("a 554 at the greeting stops the sending, saying where", () => {
    expect(classifySmtpError(greeting("554 5.7.1 You are not welcome here"))).toEqual({
      kind: "stop",
      reason: "the relay turned the connection away at its greeting: 554 5.7.1 You are not welcome here",
    });
  });
});
