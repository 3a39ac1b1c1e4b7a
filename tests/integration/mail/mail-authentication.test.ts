/**
 * The mail's authentication as receivers see it: mails that went through a real SMTP hop on loopback, verified with
 * mailauth against the public key a loopback DNS server publishes. Updates, test copies and confirmations are DKIM-signed (relaxed,
 * both List-Unsubscribe fields covered), List-Unsubscribe is on one line, Reply-To is MAIL_REPLY_TO on updates only,
 * a key that does not parse stops the command naming its variable, and `check` runs from the command line.
 */
import { generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Resolver } from "node:dns/promises";
import { authenticate } from "mailauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dkimRecordFor } from "~/mail/domain-check/dkim-record";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server";
import { subscribe } from "../../support/newsletter/http";
import { addReaders, FROM, newsletter, writeUpdate } from "../../support/newsletter/cli";
import { sendSetupPerTest } from "../../support/newsletter/send-setup";
import { serverHarness } from "../../support/production-server";
import { type ReceivedMail, startSmtpServer } from "../../support/smtp-server";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("mail-auth-", { name: NAME, front: { title: "First launch" }, body: "It is **out**." });
const harness = serverHarness("mail-auth-server-");

const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const PEM = key.export({ type: "pkcs8", format: "pem" }).toString();
const REPLY_TO = "Alex Placeholder <alex@owner.example.org>";
const signing = { DKIM_SELECTOR: "s2026", DKIM_PRIVATE_KEY: PEM, MAIL_REPLY_TO: REPLY_TO };

let dns: TestDnsServer;
beforeAll(async () => {
  // FROM is updates@mail.example.net: its domain publishes the key, SPF for loopback and a strict DMARC policy.
  dns = await startDnsServer({
    "mail.example.net": { TXT: ["v=spf1 ip4:127.0.0.1 -all"], MX: [{ exchange: "mx.example.net", priority: 10 }] },
    "s2026._domainkey.mail.example.net": { TXT: [dkimRecordFor(key)] },
    "_dmarc.mail.example.net": { TXT: ["v=DMARC1; p=reject"] },
  });
});
afterAll(async () => {
  await harness.cleanup();
  await dns.close();
});

/** What a receiver concludes: mailauth, asking the loopback DNS server through node:dns. */
async function verify(mail: ReceivedMail) {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([dns.address]);
  const result = await authenticate(mail.raw, {
    ip: "127.0.0.1",
    helo: "localhost",
    sender: mail.envelopeFrom,
    mta: "mx.receiver.test",
    resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][] | string[]>,
  });
  const [dkim] = result.dkim.results;
  return {
    dkim: dkim?.status.result,
    signingDomain: dkim?.signingDomain,
    signed: (dkim?.signingHeaders?.keys ?? "").toLowerCase().split(/\s*:\s*/),
    spf: result.spf ? result.spf.status.result : undefined,
    dmarc: result.dmarc ? result.dmarc.status.result : undefined,
  };
}

const headerOf = (raw: string) => raw.slice(0, raw.search(/\r?\n\r?\n/)).split(/\r?\n/);

describe("mail that receivers authenticate", () => {
  it("an update: DKIM pass covering both List-Unsubscribe fields, the link on one line, Reply-To the owner", async () => {
    const [reader] = await addReaders(setup.dataDir, ["reader@example.org"]);
    const run = await newsletter(setup.env({ ...signing, DNS_RESOLVER: dns.address }), ["send", NAME]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("DKIM");
    const [mail] = await setup.relay.waitForMails(1);
    const link = `https://example.com/unsubscribe?token=${reader!.unsubscribeToken}`;
    expect(headerOf(mail!.raw)).toContain(`List-Unsubscribe: <${link}>`);
    expect(headerOf(mail!.raw)).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(mail!.parsed.replyTo?.value.map((address) => address.address)).toEqual(["alex@owner.example.org"]);
    const verdict = await verify(mail!);
    expect(verdict).toMatchObject({ dkim: "pass", signingDomain: "mail.example.net", spf: "pass", dmarc: "pass" });
    expect(verdict.signed).toEqual(
      expect.arrayContaining([
        "from",
        "subject",
        "date",
        "message-id",
        "list-id",
        "list-unsubscribe",
        "list-unsubscribe-post",
      ]),
    );
    expect(mail!.raw).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=mail\.example\.net;/m);
    expect(run.stderr + run.stdout).not.toContain(PEM.split("\n")[1]);
  });

  it("a test copy: the same one-line header, signature and Reply-To", async () => {
    const run = await newsletter(setup.env(signing), ["send", NAME, "--test", "owner@example.org"]);
    expect(run.code).toBe(0);
    const [mail] = await setup.relay.waitForMails(1);
    expect(
      headerOf(mail!.raw).filter((line) =>
        /^List-Unsubscribe: <https:\/\/example\.com\/unsubscribe\?token=[^>]+>$/.test(line),
      ),
    ).toHaveLength(1);
    expect(mail!.parsed.replyTo?.value[0]?.address).toBe("alex@owner.example.org");
    expect(await verify(mail!)).toMatchObject({ dkim: "pass" });
  });

  it("a confirmation from the server: signed too, and no Reply-To (replies to updates only)", async () => {
    const relay = await startSmtpServer();
    try {
      const server = await harness.start({
        SMTP_URL: relay.url(),
        MAIL_FROM: FROM,
        DATA_DIR: harness.scratchDir(),
        ...signing,
      });
      await subscribe(server.url, "new@example.org");
      const [mail] = await relay.waitForMails(1, 10_000);
      expect(mail!.parsed.subject).toMatch(/^Confirm your subscription/);
      expect(mail!.parsed.replyTo).toBeUndefined();
      expect(headerOf(mail!.raw).some((line) => /^reply-to:/i.test(line))).toBe(false);
      expect(await verify(mail!)).toMatchObject({ dkim: "pass", dmarc: "pass" });
    } finally {
      await relay.close();
    }
  });

  it("a key that does not parse stops the command with a line naming the variable, and never the key", async () => {
    const broken = PEM.split("\n")
      .filter((_, index) => index !== 4)
      .join("\n");
    const run = await newsletter(setup.env({ ...signing, DKIM_PRIVATE_KEY: broken }), ["status"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("Invalid environment: DKIM_PRIVATE_KEY is not a PEM private key");
    expect(run.stderr + run.stdout).not.toContain(PEM.split("\n")[2]);
  });

  it("`npm run newsletter -- check` says all is well for this domain and relay", async () => {
    // On loopback, as an own Postfix on the same machine: no STARTTLS needed.
    const relay = await startSmtpServer();
    try {
      const run = await newsletter(setup.env({ ...signing, SMTP_URL: relay.url(), DNS_RESOLVER: dns.address }), [
        "check",
      ]);
      expect(run.stdout).toContain(
        "[ok]   DKIM: the key published at s2026._domainkey.mail.example.net matches DKIM_PRIVATE_KEY",
      );
      expect(run.stdout).toContain("All is well");
      expect(run.code).toBe(0);
    } finally {
      await relay.close();
    }
  });

  it("send refuses a key that is not the one published, before any reader, and remembers a match for a day", async () => {
    await addReaders(setup.dataDir, ["reader@example.org"]);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const wrong = {
      ...signing,
      DNS_RESOLVER: dns.address,
      DKIM_PRIVATE_KEY: other.export({ type: "pkcs8", format: "pem" }).toString(),
    };
    const refused = await newsletter(setup.env(wrong), ["send", NAME]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "The DKIM key is not the one published, so receivers would refuse every mail: the key published at " +
        "s2026._domainkey.mail.example.net is not the public half of DKIM_PRIVATE_KEY",
    );
    expect(refused.stderr).toContain(dkimRecordFor(other));
    expect(setup.relay.mails).toHaveLength(0);
    expect(existsSync(path.join(setup.dataDir, "dkim-check.json"))).toBe(false);

    const sent = await newsletter(setup.env({ ...signing, DNS_RESOLVER: dns.address }), ["send", NAME]);
    expect(sent.code, sent.stderr).toBe(0);
    const remembered = JSON.parse(readFileSync(path.join(setup.dataDir, "dkim-check.json"), "utf8")) as object;
    expect(Object.keys(remembered).sort()).toEqual(["digest", "matchedAt"]);
    expect(JSON.stringify(remembered)).not.toContain(PEM.split("\n")[2]);
    // Within the day the match is remembered: a DNS server that answers nothing is not even asked.
    writeUpdate(setup.updatesDir, "2026-11-21-second", { title: "Second" });
    const again = await newsletter(setup.env({ ...signing, DNS_RESOLVER: "127.0.0.1:9" }), [
      "send",
      "2026-11-21-second",
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("DKIM");
  }, 60_000);
});
