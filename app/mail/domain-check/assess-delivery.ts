// The delivery finding on where bounces go (MAIL_FROM's MX); the relay's TLS is assess-tls.ts. Pure.
import type { Finding } from "~/mail/domain-check/assess";
import { failed, type Lookup, type MxRecord } from "~/mail/domain-check/lookups";

const list = (items: string[]) => items.join(", ");

export function assessBounces(domain: string, mx: Lookup<MxRecord>, addresses: Lookup<string>): Finding {
  const topic = "Bounces";
  if (failed(mx)) return { topic, status: "fix", says: `the MX lookup of ${domain} failed: ${mx.error}.` };
  const exchanges = mx.records.filter((record) => record.exchange !== "" && record.exchange !== ".");
  if (mx.records.length > 0 && exchanges.length === 0) {
    return {
      topic,
      status: "fix",
      says: `${domain} publishes a null MX: it takes no mail, so bounces and replies to MAIL_FROM are lost, and some receivers refuse such senders.`,
      fix: `Use a MAIL_FROM address on a domain that receives mail, or give ${domain} an MX.`,
    };
  }
  if (exchanges.length > 0) {
    const hosts = [...exchanges].sort((a, b) => a.priority - b.priority).map((record) => record.exchange);
    return { topic, status: "ok", says: `bounces to ${domain} go to its MX (${list(hosts)}).` };
  }
  if (!failed(addresses) && addresses.records.length > 0) {
    return {
      topic,
      status: "note",
      says: `${domain} has no MX; bounces go to its address (${list(addresses.records)}), if a mail server listens there.`,
      fix: `Give ${domain} an MX record pointing at the server that receives its mail.`,
    };
  }
  return {
    topic,
    status: "fix",
    says: `${domain} has neither an MX nor an address: bounces cannot arrive, and receivers distrust a sender whose domain takes no mail.`,
    fix: `Give ${domain} an MX record (your mail host's), or use a MAIL_FROM on a domain that has one.`,
  };
}
