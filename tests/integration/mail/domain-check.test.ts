// `npm run newsletter -- check`'s engine against a real DNS server and real SMTP servers on loopback: each good and
// bad case a first-time sender meets, in the words the owner reads.
import { generateKeyPairSync } from "node:crypto";
import { rmSync } from "node:fs";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dkimRecordFor } from "~/mail/domain-check/dkim-record";
import { type CheckEnv, runDomainCheck } from "~/mail/domain-check/check.server";
import { startDnsServer, type TestDnsServer, type Zone } from "../../support/dns-server";
import { type KeyAndCertificate, selfSigned, signedBy } from "../../support/certificates";
import { tempDir } from "../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";

const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const pem = key.export({ type: "pkcs8", format: "pem" }).toString();

/** A domain as a careful sender sets it up, then each case takes one thing away or gets it wrong. */
function domain(name: string, change: Partial<Record<"spf" | "dkim" | "dmarc", string | null>> = {}): Zone {
  const pick = (value: string | null | undefined, fallback: string) => (value === null ? [] : [value ?? fallback]);
  return {
    [name]: { TXT: pick(change.spf, "v=spf1 ip4:127.0.0.1 -all"), MX: [{ exchange: `mx.${name}`, priority: 10 }] },
    [`s1._domainkey.${name}`]: { TXT: pick(change.dkim, dkimRecordFor(key)) },
    [`_dmarc.${name}`]: { TXT: pick(change.dmarc, `v=DMARC1; p=quarantine; rua=mailto:dmarc@${name}`) },
  };
}

let dns: TestDnsServer;
let tlsRelay: TestSmtpServer;
let plainRelay: TestSmtpServer;
let ownRelay: TestSmtpServer;
let certificates: string;
// The relay's certificate, signed for relay.test by an authority the check is told to trust (as a public one is).
let signed: KeyAndCertificate & { ca: string };

beforeAll(async () => {
  certificates = tempDir("portfolio-relay-certs-");
  signed = signedBy(certificates, "relay.test");
  // An own Postfix's certificate as Debian makes it: self-signed, for the machine's name.
  const snakeoil = selfSigned(certificates, "vps-1234");
  [dns, tlsRelay, plainRelay, ownRelay] = await Promise.all([
    startDnsServer({
      "relay.test": { A: ["127.0.0.1"] },
      ...domain("good.test"),
      ...domain("nospf.test", { spf: null }),
      ...domain("refuse.test", { spf: "v=spf1 ip4:192.0.2.0/24 ~all" }),
      ...domain("chain.test", { spf: "v=spf1 include:_spf.relay.test -all" }),
      "_spf.relay.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 include:_blocks.relay.test -all"] },
      "_blocks.relay.test": { TXT: ["v=spf1 ip4:127.0.0.0/8 -all"] },
      ...domain("nodkim.test", { dkim: null }),
      ...domain("wrongkey.test", { dkim: dkimRecordFor(otherKey) }),
      ...domain("nodmarc.test", { dmarc: null }),
      ...domain("monitor.test", { dmarc: "v=DMARC1; p=none" }),
      ...domain("slow.test"),
    }),
    startSmtpServer({ startTls: true, tls: signed }),
    startSmtpServer(),
    startSmtpServer({ startTls: true, tls: snakeoil }),
  ]);
});

afterAll(async () => {
  await Promise.all([dns.close(), tlsRelay.close(), plainRelay.close(), ownRelay.close()]);
  rmSync(certificates, { recursive: true, force: true });
});

async function check(from: string, env: Partial<CheckEnv> = {}) {
  let text = "";
  const started = Date.now();
  const code = await runDomainCheck({
    env: {
      MAIL_FROM: `Alex <updates@${from}>`,
      SMTP_URL: `smtp://user:secret@relay.test:${tlsRelay.port}`,
      DKIM_SELECTOR: "s1",
      DKIM_PRIVATE_KEY: pem,
      DNS_RESOLVER: dns.address,
      ...env,
    } as CheckEnv,
    out: { write: (chunk: string) => (text += chunk) },
    ca: signed.ca,
  });
  return { code, text, ms: Date.now() - started };
}

describe("npm run newsletter -- check", () => {
  it("says all is well for a domain whose SPF, DKIM, DMARC, MX and relay are right", async () => {
    const { code, text } = await check("good.test");
    expect(text).toContain(`Relay: smtp://relay.test:${tlsRelay.port} (127.0.0.1)`);
    expect(text).toContain(
      "[ok]   SPF: good.test's SPF record allows the relay relay.test (127.0.0.1): matched `ip4:127.0.0.1`",
    );
    expect(text).toContain("[ok]   DKIM: the key published at s1._domainkey.good.test matches DKIM_PRIVATE_KEY");
    expect(text).toContain("[ok]   DMARC: _dmarc.good.test says p=quarantine, and DMARC passes for good.test");
    expect(text).toContain("[ok]   Bounces: bounces to good.test go to its MX (mx.good.test).");
    expect(text).toContain(`[ok]   TLS: the relay relay.test:${tlsRelay.port} offers STARTTLS`);
    expect(text).toContain("All is well");
    expect(text).not.toContain("secret");
    expect(code).toBe(0);
  });

  it("names a missing SPF record, with the record to publish", async () => {
    const { code, text } = await check("nospf.test");
    expect(text).toContain("[fix]  SPF: nospf.test has no SPF record");
    expect(text).toContain('Fix: Publish a TXT record at nospf.test: "v=spf1 ip4:127.0.0.1 ~all"');
    expect(text).not.toContain("All is well");
    expect(code).toBe(1);
  });

  it("says SPF does not allow the relay, evaluated (not string-matched)", async () => {
    const { code, text } = await check("refuse.test");
    expect(text).toContain(
      "[fix]  SPF: refuse.test's SPF record (`v=spf1 ip4:192.0.2.0/24 ~all`) does not allow the relay relay.test (127.0.0.1): the result is softfail (matched `~all`).",
    );
    expect(text).toContain("Fix: Add ip4:127.0.0.1 to the record before its `all` term");
    expect(code).toBe(1);
  });

  it("follows an include chain to the relay's address", async () => {
    const { code, text } = await check("chain.test");
    expect(text).toContain(
      "[ok]   SPF: chain.test's SPF record allows the relay relay.test (127.0.0.1): matched `include:_spf.relay.test`; 2 of 10 DNS lookups used.",
    );
    expect(code).toBe(0);
  });

  it("names a missing DKIM key, giving the record to publish for DKIM_PRIVATE_KEY", async () => {
    const { code, text } = await check("nodkim.test");
    expect(text).toContain("[fix]  DKIM: no DKIM key is published at s1._domainkey.nodkim.test");
    expect(text).toContain(
      `Fix: Publish a TXT record at s1._domainkey.nodkim.test (if your DNS host asks, as two quoted strings one after the other): "${dkimRecordFor(key)}".`,
    );
    expect(code).toBe(1);
  });

  it("says the published DKIM key is not the one that signs", async () => {
    const { code, text } = await check("wrongkey.test");
    expect(text).toContain(
      "[fix]  DKIM: the key published at s1._domainkey.wrongkey.test is not the public half of DKIM_PRIVATE_KEY",
    );
    expect(code).toBe(1);
  });

  it("reminds to publish the relay's key when the app does not sign", async () => {
    const { code, text } = await check("good.test", { DKIM_SELECTOR: undefined, DKIM_PRIVATE_KEY: undefined });
    expect(text).toContain("[note] DKIM: DKIM_SELECTOR is not set");
    expect(text).toContain("publish the DKIM record it gives you");
    expect(code).toBe(0);
  });

  it("names a missing DMARC record", async () => {
    const { code, text } = await check("nodmarc.test");
    expect(text).toContain("[fix]  DMARC: nodmarc.test has no DMARC record");
    expect(text).toContain(
      'Fix: Publish a TXT record at _dmarc.nodmarc.test: "v=DMARC1; p=none; rua=mailto:dmarc@nodmarc.test"',
    );
    expect(code).toBe(1);
  });

  it("takes p=none as a start, and says what it leaves open", async () => {
    const { code, text } = await check("monitor.test");
    expect(text).toContain("[note] DMARC: _dmarc.monitor.test says p=none");
    expect(text).toContain("Nothing blocks the first send; one note is worth a look.");
    expect(code).toBe(0);
  });

  it("says a relay without STARTTLS would carry the password readable", async () => {
    const { code, text } = await check("good.test", { SMTP_URL: `smtp://relay.test:${plainRelay.port}` });
    expect(text).toContain(`[fix]  TLS: the relay relay.test:${plainRelay.port} does not offer STARTTLS`);
    expect(code).toBe(1);
  });

  it("says a lookup that gets no answer, within a few seconds, and goes on", async () => {
    dns.silent.add("_dmarc.slow.test");
    const { code, text, ms } = await check("slow.test");
    expect(text).toContain("[fix]  DMARC: the lookup of _dmarc.slow.test failed: no answer in time.");
    expect(text).toContain("[ok]   SPF:");
    expect(ms).toBeLessThan(6_000);
    expect(code).toBe(1);
  });

  it("says a relay that does not answer, bounded", async () => {
    const closed = await startSmtpServer();
    const port = closed.port;
    await closed.close();
    const { code, text } = await check("good.test", { SMTP_URL: `smtp://relay.test:${port}` });
    expect(text).toContain(
      `[fix]  TLS: the relay relay.test:${port} did not answer: cannot reach 127.0.0.1:${port} (ECONNREFUSED).`,
    );
    expect(code).toBe(1);
  });
});

describe("npm run newsletter -- check and an own Postfix", () => {
  const send = (url: string) =>
    nodemailer
      .createTransport(url)
      .sendMail({ from: "updates@good.test", to: "reader@example.com", subject: "s", text: "t" });

  it("names a self-signed certificate the sender refuses, with the option that accepts it", async () => {
    const url = `smtp://127.0.0.1:${ownRelay.port}`;
    // What the sender does with it: every mail fails.
    await expect(send(url)).rejects.toThrow(/self-signed certificate/);
    const { code, text } = await check("good.test", { SMTP_URL: url });
    expect(text).toContain(
      `[fix]  TLS: the relay 127.0.0.1:${ownRelay.port} offers STARTTLS: the password and the mails cross the network encrypted, but the sender refuses its certificate "vps-1234": it is self-signed, and it is for vps-1234, not 127.0.0.1. Every mail would fail.`,
    );
    expect(text).toContain(`smtp://127.0.0.1:${ownRelay.port}?tls.rejectUnauthorized=false`);
    expect(code).toBe(1);
  });

  it("with tls.rejectUnauthorized=false in SMTP_URL the sender takes it, and on loopback that is well", async () => {
    const url = `smtp://127.0.0.1:${ownRelay.port}?tls.rejectUnauthorized=false`;
    await send(url);
    await ownRelay.waitForMails(1, 10_000);
    const { code, text } = await check("good.test", { SMTP_URL: url });
    expect(text).toContain(`[ok]   TLS: the relay 127.0.0.1:${ownRelay.port} offers STARTTLS`);
    expect(text).toContain("SMTP_URL's tls.rejectUnauthorized=false takes it");
    expect(code).toBe(0);
  });

  it("a relay on loopback without STARTTLS is fine: nothing crosses a network", async () => {
    const { code, text } = await check("good.test", { SMTP_URL: `smtp://127.0.0.1:${plainRelay.port}` });
    expect(text).toContain(
      `[ok]   TLS: the relay 127.0.0.1:${plainRelay.port} is on this machine and the mails go to it unencrypted (it does not offer STARTTLS): nothing crosses a network.`,
    );
    expect(text).toContain("All is well");
    expect(code).toBe(0);
  });
});
