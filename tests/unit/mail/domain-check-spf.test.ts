import { describe, expect, it } from "vitest";
import type { DnsLookups, Lookup, MxRecord } from "~/mail/domain-check/lookups";
import { checkHost } from "~/mail/domain-check/spf-evaluate";
import { expandMacros, ipv6Nibbles, isSpfRecord, parseSpf } from "~/mail/domain-check/spf-parse";

interface Entry {
  TXT?: string[];
  A?: string[];
  AAAA?: string[];
  MX?: MxRecord[];
}

/** DNS as a table: a name not in it has no records; `broken` names fail like a timeout. */
function table(zone: Record<string, Entry>, broken: string[] = []): DnsLookups & { asked: string[] } {
  const asked: string[] = [];
  const get =
    <T>(type: keyof Entry) =>
    async (name: string): Promise<Lookup<T>> => {
      asked.push(`${name} ${type}`);
      if (broken.includes(name)) return { error: "no answer in time" };
      return { records: (zone[name]?.[type] ?? []) as T[] };
    };
  return { txt: get("TXT"), a: get("A"), aaaa: get("AAAA"), mx: get("MX"), asked };
}

describe("SPF records", () => {
  it("are told from other TXT records by their version alone", () => {
    expect(isSpfRecord("v=spf1 -all")).toBe(true);
    expect(isSpfRecord("V=SPF1")).toBe(true);
    expect(isSpfRecord("v=spf10 -all")).toBe(false);
    expect(isSpfRecord("google-site-verification=abc")).toBe(false);
  });

  it("parse into directives with their qualifiers, prefixes and the redirect", () => {
    const parsed = parseSpf(
      "v=spf1 ip4:192.0.2.0/24 -ip6:2001:db8::/32 a mx:mail.example.com/28//64 ~include:x.net ?all exp=why.example redirect=other.example",
    );
    expect("record" in parsed && parsed.record).toEqual({
      directives: [
        { qualifier: "+", mechanism: { kind: "ip4", address: "192.0.2.0", prefix: 24 }, text: "ip4:192.0.2.0/24" },
        { qualifier: "-", mechanism: { kind: "ip6", address: "2001:db8::", prefix: 32 }, text: "-ip6:2001:db8::/32" },
        { qualifier: "+", mechanism: { kind: "a", cidr4: 32, cidr6: 128 }, text: "a" },
        {
          qualifier: "+",
          mechanism: { kind: "mx", domain: "mail.example.com", cidr4: 28, cidr6: 64 },
          text: "mx:mail.example.com/28//64",
        },
        { qualifier: "~", mechanism: { kind: "include", domain: "x.net" }, text: "~include:x.net" },
        { qualifier: "?", mechanism: { kind: "all" }, text: "?all" },
      ],
      redirect: "other.example",
    });
  });

  it("with a term outside the grammar are errors, naming the term", () => {
    expect(parseSpf("v=spf1 ip4:300.1.1.1 -all")).toEqual({ error: "`ip4:300.1.1.1` is not an address" });
    expect(parseSpf("v=spf1 include -all")).toEqual({ error: "`include` needs a domain (include:domain)" });
    expect(parseSpf("v=spf1 ip4:192.0.2.1/33")).toEqual({ error: "`ip4:192.0.2.1/33` is not an address" });
    expect(parseSpf("v=spf1 mail -all")).toEqual({ error: "`mail` is not an SPF mechanism" });
    expect(parseSpf("v=spf1 redirect=a.example redirect=b.example")).toEqual({
      error: "the record has two `redirect=` modifiers",
    });
  });

  it("expand macros (RFC 7208 section 7.4's examples)", () => {
    const context = { sender: "strong-bad@email.example.com", domain: "email.example.com", ip: "192.0.2.3", helo: "h" };
    expect(expandMacros("%{s}", context)).toBe("strong-bad@email.example.com");
    expect(expandMacros("%{o}", context)).toBe("email.example.com");
    expect(expandMacros("%{d4}", context)).toBe("email.example.com");
    expect(expandMacros("%{d2}", context)).toBe("example.com");
    expect(expandMacros("%{dr}", context)).toBe("com.example.email");
    expect(expandMacros("%{l-}", context)).toBe("strong.bad");
    expect(expandMacros("%{ir}.%{v}._spf.%{d2}", context)).toBe("3.2.0.192.in-addr._spf.example.com");
    expect(expandMacros("%{lr-}.lp._spf.%{d2}", context)).toBe("bad.strong.lp._spf.example.com");
    expect(expandMacros("%{x}", context)).toBeNull();
    expect(ipv6Nibbles("2001:db8::cb01")).toBe("2.0.0.1.0.d.b.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.c.b.0.1");
  });
});

describe("check_host", () => {
  const sender = "updates@example.com";

  it("passes an address in an ip4 range, and fails one outside it on -all", async () => {
    const dns = table({ "example.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] } });
    expect(await checkHost(dns, "203.0.113.9", sender)).toMatchObject({ result: "pass", lookups: 0 });
    expect(await checkHost(dns, "198.51.100.1", sender)).toMatchObject({ result: "fail", reason: "matched `-all`" });
  });

  it("follows an include chain to the relay's own record", async () => {
    const dns = table({
      "example.com": { TXT: ["v=spf1 include:_spf.relay.example ~all"] },
      "_spf.relay.example": { TXT: ["v=spf1 include:_netblocks.relay.example -all"] },
      "_netblocks.relay.example": { TXT: ["v=spf1 ip6:2001:db8:5::/48 ip4:198.51.100.0/25 -all"] },
    });
    expect(await checkHost(dns, "198.51.100.77", sender)).toMatchObject({
      result: "pass",
      reason: "matched `include:_spf.relay.example`",
      lookups: 2,
    });
    expect(await checkHost(dns, "2001:db8:5::25", sender)).toMatchObject({ result: "pass" });
    // A fail inside an include is "no match" there: the outer record's ~all decides.
    expect(await checkHost(dns, "198.51.100.200", sender)).toMatchObject({ result: "softfail" });
  });

  it("matches a, mx (with prefixes) and exists through their lookups", async () => {
    const dns = table({
      "example.com": {
        TXT: ["v=spf1 a mx/30 exists:%{i}.allow.example -all"],
        A: ["192.0.2.10"],
        MX: [{ exchange: "mx.example.com", priority: 10 }],
      },
      "mx.example.com": { A: ["192.0.2.20"] },
      "192.0.2.99.allow.example": { A: ["127.0.0.2"] },
    });
    expect(await checkHost(dns, "192.0.2.10", sender)).toMatchObject({ result: "pass", reason: "matched `a`" });
    expect(await checkHost(dns, "192.0.2.23", sender)).toMatchObject({ result: "pass", reason: "matched `mx/30`" });
    expect(await checkHost(dns, "192.0.2.99", sender)).toMatchObject({ result: "pass", lookups: 3 });
    expect(await checkHost(dns, "192.0.2.50", sender)).toMatchObject({ result: "fail" });
  });

  it("follows redirect= only when nothing matched, and a redirect to no record is a permerror", async () => {
    const dns = table({
      "example.com": { TXT: ["v=spf1 ip4:192.0.2.1 redirect=_spf.example.net"] },
      "_spf.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
      "lost.example": { TXT: ["v=spf1 redirect=nowhere.example"] },
    });
    expect(await checkHost(dns, "198.51.100.5", sender)).toMatchObject({ result: "pass", lookups: 1 });
    expect(await checkHost(dns, "203.0.113.1", sender)).toMatchObject({ result: "fail" });
    expect(await checkHost(dns, "203.0.113.1", "a@lost.example")).toMatchObject({ result: "permerror" });
  });

  it("stops at the 11th DNS-querying term with a permerror, counting across includes", async () => {
    const zone: Record<string, Entry> = {
      "example.com": { TXT: [`v=spf1 ${Array.from({ length: 6 }, (_, i) => `include:n${i}.example`).join(" ")} -all`] },
    };
    for (let i = 0; i < 6; i += 1) zone[`n${i}.example`] = { TXT: [`v=spf1 a:h${i}.example -all`], A: [] };
    for (let i = 0; i < 6; i += 1) zone[`h${i}.example`] = { A: ["192.0.2.200"] };
    const outcome = await checkHost(table(zone), "203.0.113.1", sender);
    expect(outcome.result).toBe("permerror");
    expect(outcome.reason).toMatch(/^more than 10 DNS lookups/);
  });

  it("says none without a record, permerror with two, and temperror when DNS fails", async () => {
    expect(await checkHost(table({}), "192.0.2.1", sender)).toMatchObject({ result: "none" });
    const two = table({ "example.com": { TXT: ["v=spf1 -all", "v=spf1 +all"] } });
    expect(await checkHost(two, "192.0.2.1", sender)).toMatchObject({ result: "permerror" });
    const broken = table({ "example.com": { TXT: ["v=spf1 include:slow.example -all"] } }, ["slow.example"]);
    expect(await checkHost(broken, "192.0.2.1", sender)).toMatchObject({ result: "temperror" });
    const voids = table({ "example.com": { TXT: ["v=spf1 a:x1.example a:x2.example a:x3.example -all"] } });
    expect(await checkHost(voids, "192.0.2.1", sender)).toMatchObject({
      result: "permerror",
      reason: "more than 2 lookups found nothing",
    });
  });

  it("treats an include of a domain without SPF as a permerror", async () => {
    const dns = table({ "example.com": { TXT: ["v=spf1 include:gone.example -all"] } });
    expect(await checkHost(dns, "192.0.2.1", sender)).toMatchObject({
      result: "permerror",
      reason: "include:gone.example: gone.example has no SPF record",
    });
  });
});
