// `npm run newsletter -- check`: MAIL_FROM's domain as receivers will see it, before the first send. Every lookup
// and the relay's probe are bounded; whatever fails is said, and the check goes on with the rest.
import { isIP } from "node:net";
import type { Resolver } from "node:dns/promises";
import { DkimKeyError, dkimKeyOf, type DkimKey } from "~/mail/dkim.server";
import { assessDkim, assessDmarc, assessSpf, assessSpfWithoutRelay, type Finding } from "~/mail/domain-check/assess";
import { assessBounces } from "~/mail/domain-check/assess-delivery";
import { assessTls, type RelayTls } from "~/mail/domain-check/assess-tls";
import { createResolver, dnsLookups } from "~/mail/domain-check/dns.server";
import { dmarcNames } from "~/mail/domain-check/dmarc";
import { type DnsLookups, failed } from "~/mail/domain-check/lookups";
import { exitCodeOf, renderReport } from "~/mail/domain-check/report";
import { probeRelayTls } from "~/mail/domain-check/smtp-probe.server";
import { checkHost } from "~/mail/domain-check/spf-evaluate";
import type { Env } from "~/utils/env.server";

export type CheckEnv = Pick<
  Env,
  | "MAIL_FROM"
  | "SMTP_URL"
  | "DKIM_DOMAIN"
  | "DKIM_SELECTOR"
  | "DKIM_PRIVATE_KEY"
  | "DKIM_PRIVATE_KEY_FILE"
  | "DNS_RESOLVER"
>;

export interface DomainCheckOptions {
  env: CheckEnv;
  out: { write(text: string): unknown };
  /** node:dns's resolver to ask; by default one on DNS_RESOLVER, or the system's servers. */
  resolver?: Resolver;
  /** The certificate authorities the relay's certificate is judged by; Node's own by default, as the sender's. */
  ca?: string;
}

interface Relay extends RelayTls {
  implicitTls: boolean;
}

/** SMTP_URL as Nodemailer reads it: scheme, host, port (its defaults when none) and the TLS options that matter. */
function relayOf(smtpUrl: string | undefined): Relay | null {
  if (!smtpUrl || !/^smtps?:/.test(smtpUrl)) return null;
  const url = new URL(smtpUrl);
  const implicitTls = url.protocol === "smtps:";
  const port = url.port ? Number(url.port) : implicitTls ? 465 : 587;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return {
    host,
    port,
    implicitTls,
    loopback: host === "localhost" || host === "::1" || /^127\./.test(host),
    acceptsAnyCertificate: url.searchParams.get("tls.rejectUnauthorized") === "false",
    ignoresTls: url.searchParams.get("ignoreTLS") === "true" && url.searchParams.get("requireTLS") !== "true",
  };
}

const addressOf = (from: string) => (/<([^<>]*)>\s*$/.exec(from)?.[1] ?? from).trim();

async function relayAddresses(dns: DnsLookups, host: string): Promise<string[] | string> {
  if (isIP(host)) return [host];
  const [v4, v6] = await Promise.all([dns.a(host), dns.aaaa(host)]);
  const addresses = [...(failed(v4) ? [] : v4.records), ...(failed(v6) ? [] : v6.records)];
  if (addresses.length > 0) return addresses;
  const error = failed(v4) ? v4.error : failed(v6) ? v6.error : "no A or AAAA record";
  return `the relay ${host} does not resolve (${error})`;
}

async function spfFinding(
  dns: DnsLookups,
  sender: string,
  domain: string,
  relay: Relay | null,
  addresses: string[] | string,
) {
  if (!relay) return assessSpfWithoutRelay(domain, await dns.txt(domain));
  if (typeof addresses === "string") {
    return {
      topic: "SPF",
      status: "fix",
      says: `${addresses}: there is no address to check SPF for.`,
      fix: "Check SMTP_URL's host name.",
    } satisfies Finding;
  }
  const outcomes = await Promise.all(addresses.map(async (ip) => ({ ip, outcome: await checkHost(dns, ip, sender) })));
  return assessSpf(domain, { host: relay.host, addresses }, outcomes);
}

async function tlsFinding(relay: Relay, addresses: string[] | string, ca: string | undefined): Promise<Finding> {
  const address = typeof addresses === "string" ? relay.host : (addresses[0] ?? relay.host);
  if (relay.ignoresTls && !relay.implicitTls) return assessTls({ kind: "plain", relay });
  const probe = await probeRelayTls({
    address,
    port: relay.port,
    host: relay.host,
    implicitTls: relay.implicitTls,
    ca,
  });
  if ("error" in probe) return assessTls({ kind: "unreachable", relay, error: probe.error });
  if (probe.tls === "none") return assessTls({ kind: "plain", relay });
  return assessTls({ kind: "secured", relay, how: probe.tls, certificate: probe.certificate });
}

/** Runs the check, writes the report to `out`, and returns the exit code: 0 when nothing must be fixed. */
export async function runDomainCheck({ env, out, resolver, ca }: DomainCheckOptions): Promise<number> {
  if (!env.MAIL_FROM) {
    out.write("MAIL_FROM is not set: the check looks up the domain of the address mails are sent from.\n");
    return 2;
  }
  const sender = addressOf(env.MAIL_FROM);
  const domain = sender.slice(sender.lastIndexOf("@") + 1).toLowerCase();
  const dns = dnsLookups(resolver ?? createResolver(env.DNS_RESOLVER));
  let key: DkimKey | null;
  try {
    key = dkimKeyOf(env);
  } catch (error) {
    if (!(error instanceof DkimKeyError)) throw error;
    out.write(`${error.variable} ${error.message}\n`);
    return 2;
  }
  const relay = relayOf(env.SMTP_URL);
  const addresses = relay ? await relayAddresses(dns, relay.host) : [];
  const selector = env.DKIM_SELECTOR;
  const dkimDomain = key?.domain ?? env.DKIM_DOMAIN?.toLowerCase() ?? domain;
  const [spf, dkim, mx, domainAddresses, tls, dmarcLookups] = await Promise.all([
    spfFinding(dns, sender, domain, relay, addresses),
    selector
      ? dns
          .txt(`${selector}._domainkey.${dkimDomain}`)
          .then((txt) =>
            assessDkim({ selector, domain: dkimDomain, txt, ...(key ? { privateKey: key.privateKey } : {}) }),
          )
      : assessDkim({ domain: dkimDomain }),
    dns.mx(domain),
    dns.a(domain),
    relay ? tlsFinding(relay, addresses, ca) : null,
    Promise.all(dmarcNames(domain).map(async (name) => ({ name, txt: await dns.txt(name) }))),
  ]);
  const dmarc = assessDmarc({
    fromDomain: domain,
    lookups: dmarcLookups,
    spfPasses: spf.status === "ok",
    ...(dkim.status === "ok" ? { dkimDomain } : {}),
  });
  const findings = [spf, dkim, dmarc, assessBounces(domain, mx, domainAddresses), ...(tls ? [tls] : [])];
  const relayText = !relay
    ? "none (SMTP_URL names no smtp:// or smtps:// relay)"
    : `${relay.implicitTls ? "smtps" : "smtp"}://${relay.host}:${relay.port}${typeof addresses === "string" ? "" : ` (${addresses.join(", ")})`}`;
  out.write(renderReport({ from: env.MAIL_FROM, domain, relay: relayText }, findings));
  return exitCodeOf(findings);
}
