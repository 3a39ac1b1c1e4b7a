// check_host() of RFC 7208 (section 4) over the DnsLookups interface: what a receiver concludes about one relay
// address sending for a domain. The DNS-querying terms are counted across the whole evaluation (includes and
// redirects too) and stop at 10, void lookups at 2, as receivers count them.
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { type DnsLookups, failed, type Lookup } from "~/mail/domain-check/lookups";
import { type Directive, expandMacros, isSpfRecord, type MacroContext, parseSpf } from "~/mail/domain-check/spf-parse";

export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror";

export interface SpfOutcome {
  result: SpfResult;
  /** The record of the domain asked about (the first of the chain), when it has exactly one. */
  record?: string;
  /** Why: the matching term and where it was (`include:_spf.example.net`), or what made it an error. */
  reason: string;
  /** DNS-querying terms the evaluation used (at most 10 allowed). */
  lookups: number;
}

export const LOOKUP_LIMIT = 10;
const VOID_LIMIT = 2;
const MX_LIMIT = 10;

class SpfStop extends Error {
  constructor(
    readonly result: "permerror" | "temperror",
    message: string,
  ) {
    super(message);
  }
}

const QUALIFIED: Record<string, SpfResult> = { "+": "pass", "-": "fail", "~": "softfail", "?": "neutral" };

function inNetwork(ip: string, address: string, bits: number): boolean {
  const family = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : null;
  if (!family || (family === "ipv4") !== isIPv4(ip)) return false;
  const list = new BlockList();
  list.addSubnet(address, bits, family);
  return list.check(ip, family);
}

interface State {
  dns: DnsLookups;
  ip: string;
  sender: string;
  lookups: number;
  voids: number;
}

function count(state: State, term: string) {
  state.lookups += 1;
  if (state.lookups > LOOKUP_LIMIT) {
    throw new SpfStop("permerror", `more than ${LOOKUP_LIMIT} DNS lookups (the limit is reached at ${term})`);
  }
}

async function records<T>(state: State, lookup: Promise<Lookup<T>>, name: string): Promise<T[]> {
  const answer = await lookup;
  if (failed(answer)) throw new SpfStop("temperror", `the lookup of ${name} failed (${answer.error})`);
  if (answer.records.length === 0) {
    state.voids += 1;
    if (state.voids > VOID_LIMIT) throw new SpfStop("permerror", `more than ${VOID_LIMIT} lookups found nothing`);
  }
  return answer.records;
}

async function addressesOf(state: State, host: string): Promise<string[]> {
  return isIPv4(state.ip) ? records(state, state.dns.a(host), host) : records(state, state.dns.aaaa(host), host);
}

function target(spec: string | undefined, context: MacroContext, term: string): string {
  if (spec === undefined) return context.domain;
  const expanded = expandMacros(spec, context);
  if (expanded === null) throw new SpfStop("permerror", `\`${term}\` has a malformed macro`);
  return expanded.replace(/\.$/, "").toLowerCase();
}

async function matches(state: State, directive: Directive, domain: string, depth: number): Promise<boolean> {
  const { mechanism, text } = directive;
  const context: MacroContext = { sender: state.sender, domain, ip: state.ip, helo: domain };
  switch (mechanism.kind) {
    case "all":
      return true;
    case "ip4":
    case "ip6":
      return inNetwork(state.ip, mechanism.address, mechanism.prefix);
    case "a":
    case "mx": {
      count(state, text);
      const host = target(mechanism.domain, context, text);
      const bits = isIPv4(state.ip) ? mechanism.cidr4 : mechanism.cidr6;
      if (mechanism.kind === "a") {
        return (await addressesOf(state, host)).some((address) => inNetwork(state.ip, address, bits));
      }
      const exchanges = await records(state, state.dns.mx(host), host);
      if (exchanges.length > MX_LIMIT) throw new SpfStop("permerror", `${host} has more than ${MX_LIMIT} MX records`);
      for (const { exchange } of exchanges) {
        if (exchange && (await addressesOf(state, exchange)).some((address) => inNetwork(state.ip, address, bits))) {
          return true;
        }
      }
      return false;
    }
    case "ptr":
      // Deprecated (section 5.5) and slow: receivers may skip it; the check does, and says so through the result.
      count(state, text);
      return false;
    case "exists": {
      count(state, text);
      const host = target(mechanism.domain, context, text);
      return (await records(state, state.dns.a(host), host)).length > 0;
    }
    case "include": {
      count(state, text);
      const host = target(mechanism.domain, context, text);
      const inner = await evaluate(state, host, depth + 1);
      if (inner.result === "pass") return true;
      if (inner.result === "temperror") throw new SpfStop("temperror", inner.reason);
      if (inner.result === "permerror" || inner.result === "none") {
        throw new SpfStop(
          "permerror",
          `${text}: ${inner.result === "none" ? `${host} has no SPF record` : inner.reason}`,
        );
      }
      return false;
    }
  }
}

async function evaluate(
  state: State,
  domain: string,
  depth: number,
): Promise<{ result: SpfResult; reason: string; record?: string }> {
  if (depth > LOOKUP_LIMIT) throw new SpfStop("permerror", "includes or redirects loop");
  const answer = await state.dns.txt(domain);
  if (failed(answer)) return { result: "temperror", reason: `the TXT lookup of ${domain} failed (${answer.error})` };
  const spf = answer.records.filter(isSpfRecord);
  if (spf.length === 0) return { result: "none", reason: `${domain} has no SPF record` };
  if (spf.length > 1)
    return { result: "permerror", reason: `${domain} has ${spf.length} SPF records (one is allowed)` };
  const record = spf[0] ?? "";
  const parsed = parseSpf(record);
  if ("error" in parsed) return { result: "permerror", reason: `${domain}: ${parsed.error}`, record };
  for (const directive of parsed.record.directives) {
    if (await matches(state, directive, domain, depth)) {
      const where = depth === 0 ? "" : ` (in ${domain}'s record)`;
      return {
        result: QUALIFIED[directive.qualifier] ?? "neutral",
        reason: `matched \`${directive.text}\`${where}`,
        record,
      };
    }
  }
  const hasAll = parsed.record.directives.some((directive) => directive.mechanism.kind === "all");
  if (parsed.record.redirect !== undefined && !hasAll) {
    const text = `redirect=${parsed.record.redirect}`;
    count(state, text);
    const next = target(parsed.record.redirect, { sender: state.sender, domain, ip: state.ip, helo: domain }, text);
    const inner = await evaluate(state, next, depth + 1);
    if (inner.result === "none") return { result: "permerror", reason: `${text}: ${next} has no SPF record`, record };
    return { ...inner, record };
  }
  return { result: "neutral", reason: "no term matched (the default is neutral)", record };
}

/** What a receiver concludes when `ip` sends mail whose envelope sender is `sender` (local@domain). */
export async function checkHost(dns: DnsLookups, ip: string, sender: string): Promise<SpfOutcome> {
  const domain = sender.slice(sender.lastIndexOf("@") + 1).toLowerCase();
  const state: State = { dns, ip, sender, lookups: 0, voids: 0 };
  try {
    const outcome = await evaluate(state, domain, 0);
    return { ...outcome, lookups: state.lookups };
  } catch (error) {
    if (!(error instanceof SpfStop)) throw error;
    const first = await dns.txt(domain);
    const record = failed(first) ? undefined : first.records.find(isSpfRecord);
    return { result: error.result, reason: error.message, lookups: state.lookups, ...(record ? { record } : {}) };
  }
}
