import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assessDkim, assessDmarc, assessSpf } from "~/mail/domain-check/assess";
import { assessBounces } from "~/mail/domain-check/assess-delivery";
import { dkimRecordFor, parseDkimRecord, publicKeyValue, recordMatchesKey } from "~/mail/domain-check/dkim-record";
import { aligned, dmarcNames, organizationalDomain, parseDmarc } from "~/mail/domain-check/dmarc";
import { exitCodeOf, renderReport, verdict } from "~/mail/domain-check/report";

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
const { privateKey: otherKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });

describe("DMARC records", () => {
  it("parse with their defaults (relaxed alignment, sp = p, pct 100)", () => {
    expect(parseDmarc("v=DMARC1; p=quarantine; rua=mailto:d@example.com")).toEqual({
      record: {
        policy: "quarantine",
        subdomainPolicy: "quarantine",
        adkim: "r",
        aspf: "r",
        pct: 100,
        rua: "mailto:d@example.com",
      },
    });
    expect(parseDmarc("v=DMARC1;p=reject;sp=none;adkim=s;pct=20")).toMatchObject({
      record: { policy: "reject", subdomainPolicy: "none", adkim: "s", pct: 20 },
    });
    expect(parseDmarc("v=DMARC1; rua=mailto:d@example.com")).toEqual({
      error: "the record has no policy (p=none, p=quarantine or p=reject)",
    });
    expect(parseDmarc("v=DMARC1; p=block")).toEqual({ error: "p=block is not a policy (none, quarantine or reject)" });
  });

  it("align relaxed within the organizational domain, strict only on the same name", () => {
    expect(organizationalDomain("mail.news.example.co.uk")).toBe("example.co.uk");
    expect(aligned("example.com", "mail.example.com", "r")).toBe(true);
    expect(aligned("example.com", "mail.example.com", "s")).toBe(false);
    expect(aligned("example.com", "example.net", "r")).toBe(false);
    expect(dmarcNames("news.example.com")).toEqual(["_dmarc.news.example.com", "_dmarc.example.com"]);
    expect(dmarcNames("example.com")).toEqual(["_dmarc.example.com"]);
  });
});

describe("DKIM key records", () => {
  it("match the public half of the private key, and only that one", () => {
    const published = parseDkimRecord(`v=DKIM1; k=rsa; p=${publicKeyValue(privateKey)}`);
    if (!("record" in published)) throw new Error("the record should parse");
    expect(recordMatchesKey(published.record, privateKey)).toBe(true);
    expect(recordMatchesKey(published.record, otherKey)).toBe(false);
    expect(dkimRecordFor(privateKey)).toBe(`v=DKIM1; k=rsa; p=${publicKeyValue(privateKey)}`);
    expect(parseDkimRecord("v=DKIM2; p=abc")).toEqual({ error: "v=DKIM2 is not DKIM1" });
    expect(parseDkimRecord("v=DKIM1; k=rsa")).toEqual({ error: "the record has no key (p=)" });
  });
});

const relay = { host: "smtp.relay.example", addresses: ["203.0.113.5"] };

describe("findings", () => {
  it("say a missing SPF record with the record to publish", () => {
    const finding = assessSpf("example.com", relay, [
      { ip: "203.0.113.5", outcome: { result: "none", reason: "example.com has no SPF record", lookups: 0 } },
    ]);
    expect(finding.status).toBe("fix");
    expect(finding.fix).toContain('"v=spf1 ip4:203.0.113.5 ~all"');
  });

  it("say which relay address SPF refuses, and how it was refused", () => {
    const finding = assessSpf("example.com", relay, [
      {
        ip: "203.0.113.5",
        outcome: { result: "softfail", reason: "matched `~all`", record: "v=spf1 mx ~all", lookups: 1 },
      },
    ]);
    expect(finding).toMatchObject({ status: "fix", fix: expect.stringContaining("ip4:203.0.113.5") });
    expect(finding.says).toContain("the result is softfail (matched `~all`)");
  });

  it("give the exact DKIM record to publish when none is, and refuse a key that is not ours", () => {
    const missing = assessDkim({ selector: "s1", domain: "example.com", privateKey, txt: { records: [] } });
    expect(missing).toMatchObject({
      status: "fix",
      fix: `Publish a TXT record at s1._domainkey.example.com: "${dkimRecordFor(privateKey)}".`,
    });
    const other = assessDkim({
      selector: "s1",
      domain: "example.com",
      privateKey,
      txt: { records: [dkimRecordFor(otherKey)] },
    });
    expect(other.status).toBe("fix");
    expect(other.says).toContain("is not the public half of DKIM_PRIVATE_KEY");
    const good = assessDkim({
      selector: "s1",
      domain: "example.com",
      privateKey,
      txt: { records: [dkimRecordFor(privateKey)] },
    });
    expect(good.status).toBe("ok");
    expect(assessDkim({ domain: "example.com" }).status).toBe("note");
  });

  it("weigh DMARC's policy against what would pass", () => {
    const lookups = (text?: string) => [{ name: "_dmarc.example.com", txt: { records: text ? [text] : [] } }];
    expect(assessDmarc({ fromDomain: "example.com", lookups: lookups(), spfPasses: true }).status).toBe("fix");
    expect(
      assessDmarc({ fromDomain: "example.com", lookups: lookups("v=DMARC1; p=none"), spfPasses: true }).status,
    ).toBe("note");
    expect(
      assessDmarc({ fromDomain: "example.com", lookups: lookups("v=DMARC1; p=reject"), spfPasses: true }).status,
    ).toBe("ok");
    const unbacked = assessDmarc({
      fromDomain: "example.com",
      lookups: lookups("v=DMARC1; p=reject"),
      spfPasses: false,
    });
    expect(unbacked).toMatchObject({ status: "fix", says: expect.stringContaining("receivers would reject them") });
    const strict = lookups("v=DMARC1; p=reject; adkim=s");
    expect(
      assessDmarc({ fromDomain: "example.com", lookups: strict, spfPasses: false, dkimDomain: "mail.example.com" })
        .status,
    ).toBe("fix");
    expect(
      assessDmarc({ fromDomain: "example.com", lookups: strict, spfPasses: false, dkimDomain: "example.com" }).status,
    ).toBe("ok");
  });

  it("say where bounces go, and whether the relay encrypts", () => {
    expect(
      assessBounces("example.com", { records: [{ exchange: "mx.example.com", priority: 5 }] }, { records: [] }).status,
    ).toBe("ok");
    expect(assessBounces("example.com", { records: [{ exchange: "", priority: 0 }] }, { records: [] }).status).toBe(
      "fix",
    );
    expect(assessBounces("example.com", { records: [] }, { records: ["192.0.2.1"] }).status).toBe("note");
    expect(assessBounces("example.com", { records: [] }, { records: [] }).status).toBe("fix");
    expect(assessBounces("example.com", { error: "no answer in time" }, { records: [] }).says).toContain(
      "no answer in time",
    );
  });
});

describe("the report", () => {
  const head = { from: "Alex <updates@example.com>", domain: "example.com", relay: "smtp://h:587 (203.0.113.5)" };

  it("says all is well only when every finding is ok, and exits 0", () => {
    const ok = [{ topic: "SPF" as const, status: "ok" as const, says: "fine." }];
    expect(renderReport(head, ok)).toBe(
      [
        "Checking example.com for mail from Alex <updates@example.com>",
        "Relay: smtp://h:587 (203.0.113.5)",
        "",
        "[ok]   SPF: fine.",
        "",
        "All is well: receivers can authenticate these mails. Send a --test copy to yourself next.",
        "",
      ].join("\n"),
    );
    expect(exitCodeOf(ok)).toBe(0);
  });

  it("prints each fix under its finding, counts them, and exits 1", () => {
    const findings = [
      { topic: "DKIM" as const, status: "fix" as const, says: "no key.", fix: "Publish it." },
      { topic: "DMARC" as const, status: "note" as const, says: "p=none.", fix: "Move on." },
    ];
    const text = renderReport(head, findings);
    expect(text).toContain(
      "[fix]  DKIM: no key.\n       Fix: Publish it.\n[note] DMARC: p=none.\n       Fix: Move on.",
    );
    expect(verdict(findings)).toBe(
      "One thing to fix before the first send: receivers may refuse or bin these mails until then.",
    );
    expect(exitCodeOf(findings)).toBe(1);
    expect(verdict(findings.slice(1))).toBe("Nothing blocks the first send; one note is worth a look.");
  });
});
