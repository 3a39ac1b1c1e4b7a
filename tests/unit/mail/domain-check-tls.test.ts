// The relay's TLS finding (app/mail/domain-check/assess-tls.ts): what the sender will do with what the probe saw.
import { describe, expect, it } from "vitest";
import { assessTls, type RelayTls } from "~/mail/domain-check/assess-tls";
import type { CertificateReport } from "~/mail/domain-check/certificate";

const remote: RelayTls = {
  host: "mail.example.com",
  port: 587,
  loopback: false,
  acceptsAnyCertificate: false,
  ignoresTls: false,
};
const local: RelayTls = { ...remote, host: "127.0.0.1", port: 25, loopback: true };
const good: CertificateReport = {
  subject: "mail.example.com",
  issuer: "R11",
  names: ["mail.example.com"],
  validTo: "Jan  1 00:00:00 2027 GMT",
  chainError: null,
  wrongName: false,
};
// What Debian's Postfix offers out of the box: the snakeoil certificate, made for the machine's own name.
const snakeoil: CertificateReport = {
  subject: "vps-1234",
  issuer: "vps-1234",
  names: ["vps-1234"],
  validTo: "May  1 00:00:00 2036 GMT",
  chainError: "DEPTH_ZERO_SELF_SIGNED_CERT",
  wrongName: true,
};

describe("the relay's TLS", () => {
  it("a relay elsewhere without STARTTLS, or with it turned off, must be fixed", () => {
    expect(assessTls({ kind: "plain", relay: remote })).toMatchObject({ status: "fix" });
    expect(assessTls({ kind: "plain", relay: { ...remote, ignoresTls: true } })).toMatchObject({
      status: "fix",
      fix: "Remove ignoreTLS=true from SMTP_URL.",
    });
  });

  it("a relay on this machine needs none: nothing crosses a network", () => {
    const finding = assessTls({ kind: "plain", relay: local });
    expect(finding.status).toBe("ok");
    expect(finding.says).toContain("is on this machine");
  });

  it("a trusted certificate for the host is well, by STARTTLS or smtps://", () => {
    expect(assessTls({ kind: "secured", relay: remote, how: "starttls", certificate: good }).status).toBe("ok");
    expect(assessTls({ kind: "secured", relay: remote, how: "implicit", certificate: good }).status).toBe("ok");
  });

  it("a self-signed certificate is named, with both fixes and where the docs are", () => {
    const finding = assessTls({ kind: "secured", relay: local, how: "starttls", certificate: snakeoil });
    expect(finding.status).toBe("fix");
    expect(finding.says).toBe(
      'the relay 127.0.0.1:25 offers STARTTLS: the password and the mails cross the network encrypted, but the sender refuses its certificate "vps-1234": it is self-signed, and it is for vps-1234, not 127.0.0.1. Every mail would fail.',
    );
    expect(finding.fix).toContain("smtp://127.0.0.1:25?tls.rejectUnauthorized=false");
    expect(finding.fix).toContain("docs/newsletter.md#your-own-postfix");
  });

  it("names an expired certificate and an untrusted authority", () => {
    const expired = { ...good, chainError: "CERT_HAS_EXPIRED" };
    expect(assessTls({ kind: "secured", relay: remote, how: "implicit", certificate: expired }).says).toContain(
      "it expired (Jan  1 00:00:00 2027 GMT)",
    );
    const privateCa = { ...good, issuer: "Home CA", chainError: "SELF_SIGNED_CERT_IN_CHAIN" };
    expect(assessTls({ kind: "secured", relay: remote, how: "starttls", certificate: privateCa }).says).toContain(
      "its authority (Home CA) is one nobody trusts but itself",
    );
  });

  it("tls.rejectUnauthorized=false takes it: fine on loopback, a note elsewhere", () => {
    const accepting = { ...local, acceptsAnyCertificate: true };
    expect(assessTls({ kind: "secured", relay: accepting, how: "starttls", certificate: snakeoil }).status).toBe("ok");
    const far = { ...remote, acceptsAnyCertificate: true };
    expect(assessTls({ kind: "secured", relay: far, how: "starttls", certificate: snakeoil }).status).toBe("note");
  });

  it("a relay that does not answer is said, with what to check", () => {
    expect(assessTls({ kind: "unreachable", relay: remote, error: "cannot reach 192.0.2.1:587 (ETIMEDOUT)" })).toEqual({
      topic: "TLS",
      status: "fix",
      says: "the relay mail.example.com:587 did not answer: cannot reach 192.0.2.1:587 (ETIMEDOUT).",
      fix: "Check SMTP_URL's host and port, and that this machine may connect out to it.",
    });
  });
});
