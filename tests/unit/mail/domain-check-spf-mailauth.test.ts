// The domain check's own SPF evaluation beside mailauth's, over the same DNS table: the verdict, the record and the
// number of DNS lookups must agree (the check keeps its own evaluator for its words: which term matched, which
// lookup failed; docs/decisions/028-composition-root.md).
import { spf } from "mailauth/lib/spf";
import { describe, expect, it } from "vitest";
import type { DnsLookups, Lookup, MxRecord } from "~/mail/domain-check/lookups";
import { checkHost } from "~/mail/domain-check/spf-evaluate";

interface Entry {
  TXT?: string[];
  A?: string[];
  AAAA?: string[];
  MX?: MxRecord[];
}
type Zone = Record<string, Entry>;

/** The check's lookups over the table: a name not in it has no records; `broken` names fail like a timeout. */
function lookups(zone: Zone, broken: string[]): DnsLookups {
  const get =
    <T>(type: keyof Entry) =>
    async (name: string): Promise<Lookup<T>> =>
      broken.includes(name) ? { error: "no answer in time" } : { records: (zone[name]?.[type] ?? []) as T[] };
  return { txt: get("TXT"), a: get("A"), aaaa: get("AAAA"), mx: get("MX") };
}

/** mailauth's resolver over the same table, failing as node:dns does (ENOTFOUND, ENODATA, ETIMEOUT). */
function resolver(zone: Zone, broken: string[]) {
  const fail = (code: string) => Promise.reject(Object.assign(new Error(code), { code }));
  return (name: string, type: string): Promise<never> => {
    if (broken.includes(name)) return fail("ETIMEOUT");
    const entry = zone[name];
    if (!entry) return fail("ENOTFOUND");
    const records = entry[type as keyof Entry] ?? [];
    if (records.length === 0) return fail("ENODATA");
    return Promise.resolve((type === "TXT" ? (records as string[]).map((text) => [text]) : records) as never);
  };
}

const relay: Zone = {
  "example.com": { TXT: ["v=spf1 include:_spf.relay.example ~all"] },
  "_spf.relay.example": { TXT: ["v=spf1 include:_netblocks.relay.example -all"] },
  "_netblocks.relay.example": { TXT: ["v=spf1 ip6:2001:db8:5::/48 ip4:198.51.100.0/25 -all"] },
};
const lookupsByName: Zone = {
  "example.com": {
    TXT: ["v=spf1 a mx/30 exists:%{i}.allow.example -all"],
    A: ["192.0.2.10"],
    MX: [{ exchange: "mx.example.com", priority: 10 }],
  },
  "mx.example.com": { A: ["192.0.2.20"] },
  "192.0.2.99.allow.example": { A: ["127.0.0.2"] },
};
const redirected: Zone = {
  "example.com": { TXT: ["v=spf1 ip4:192.0.2.1 redirect=_spf.example.net"] },
  "_spf.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
  "lost.example": { TXT: ["v=spf1 redirect=nowhere.example"] },
};
const tooMany: Zone = {
  "example.com": { TXT: [`v=spf1 ${Array.from({ length: 6 }, (_, i) => `include:n${i}.example`).join(" ")} -all`] },
};
for (let i = 0; i < 6; i += 1) {
  tooMany[`n${i}.example`] = { TXT: [`v=spf1 a:h${i}.example -all`] };
  tooMany[`h${i}.example`] = { A: ["192.0.2.200"] };
}

const sender = "updates@example.com";
const cases: { name: string; zone: Zone; ip: string; sender?: string; broken?: string[] }[] = [
  { name: "an ip4 range", zone: { "example.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] } }, ip: "203.0.113.9" },
  { name: "-all", zone: { "example.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] } }, ip: "198.51.100.1" },
  { name: "an include chain", zone: relay, ip: "198.51.100.77" },
  { name: "an include chain over IPv6", zone: relay, ip: "2001:db8:5::25" },
  { name: "a fail inside an include", zone: relay, ip: "198.51.100.200" },
  { name: "a", zone: lookupsByName, ip: "192.0.2.10" },
  { name: "mx with a prefix", zone: lookupsByName, ip: "192.0.2.23" },
  { name: "exists with a macro", zone: lookupsByName, ip: "192.0.2.99" },
  { name: "none of a, mx, exists", zone: lookupsByName, ip: "192.0.2.50" },
  { name: "a redirect", zone: redirected, ip: "198.51.100.5" },
  { name: "a redirect's -all", zone: redirected, ip: "203.0.113.1" },
  { name: "a redirect to no record", zone: redirected, ip: "203.0.113.1", sender: "a@lost.example" },
  { name: "the 11th DNS-querying term", zone: tooMany, ip: "203.0.113.1" },
  { name: "no record", zone: {}, ip: "192.0.2.1" },
  { name: "two records", zone: { "example.com": { TXT: ["v=spf1 -all", "v=spf1 +all"] } }, ip: "192.0.2.1" },
  {
    name: "a lookup that fails",
    zone: { "example.com": { TXT: ["v=spf1 include:slow.example -all"] } },
    ip: "192.0.2.1",
    broken: ["slow.example"],
  },
  {
    name: "three lookups that find nothing",
    zone: { "example.com": { TXT: ["v=spf1 a:x1.example a:x2.example a:x3.example -all"] } },
    ip: "192.0.2.1",
  },
  {
    name: "an include of a domain without SPF",
    zone: { "example.com": { TXT: ["v=spf1 include:gone.example -all"] } },
    ip: "192.0.2.1",
  },
];

describe("the domain check's SPF verdicts are mailauth's", () => {
  it.each(cases)("$name", async ({ zone, ip, sender: from = sender, broken = [] }) => {
    const ours = await checkHost(lookups(zone, broken), ip, from);
    const theirs = await spf({ sender: from, ip, mta: "check", resolver: resolver(zone, broken), strict: true });
    expect(ours.result).toBe(theirs.status.result);
    expect(ours.record).toBe(theirs.rr);
    expect(ours.lookups).toBe(theirs.lookups?.count);
  });
});
