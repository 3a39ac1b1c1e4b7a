// From what DNS and the relay answered to findings in plain words, each with its fix: pure, unit tested. The
// lookups happen in check.server.ts; nothing here waits for anything.
import type { KeyObject } from "node:crypto";
import { dkimRecordFor, parseDkimRecord, recordMatchesKey } from "~/mail/domain-check/dkim-record";
import { aligned, type DmarcRecord, isDmarcRecord, parseDmarc } from "~/mail/domain-check/dmarc";
import { failed, type Lookup } from "~/mail/domain-check/lookups";
import { LOOKUP_LIMIT, type SpfOutcome } from "~/mail/domain-check/spf-evaluate";

export type Status = "ok" | "note" | "fix";

export interface Finding {
  topic: "SPF" | "DKIM" | "DMARC" | "Bounces" | "TLS";
  status: Status;
  says: string;
  fix?: string;
}

const list = (items: string[]) => items.join(", ");

/** The terms that would allow these addresses (`ip4:203.0.113.5 ip6:2001:db8::1`). */
export const ipTerms = (addresses: string[]) =>
  addresses.map((address) => `${address.includes(":") ? "ip6" : "ip4"}:${address}`).join(" ");

export function assessSpf(
  domain: string,
  relay: { host: string; addresses: string[] },
  outcomes: { ip: string; outcome: SpfOutcome }[],
): Finding {
  const topic = "SPF";
  const first = outcomes[0]?.outcome;
  if (!first) return { topic, status: "fix", says: `no address to check for the relay ${relay.host}` };
  const record = first.record ? ` (\`${first.record}\`)` : "";
  const add = ipTerms(relay.addresses);
  if (first.result === "none") {
    return {
      topic,
      status: "fix",
      says: `${domain} has no SPF record: receivers cannot tell that the relay may send for it.`,
      fix: `Publish a TXT record at ${domain}: "v=spf1 ${add} ~all" (or the include: your relay's documentation gives instead of ${add}).`,
    };
  }
  const broken = outcomes.find(({ outcome }) => outcome.result === "permerror" || outcome.result === "temperror");
  if (broken) {
    const temporary = broken.outcome.result === "temperror";
    return {
      topic,
      status: "fix",
      says: temporary
        ? `the SPF check of ${domain} could not finish: ${broken.outcome.reason}.`
        : `${domain}'s SPF record${record} is broken: ${broken.outcome.reason}. Receivers treat that as a failure.`,
      fix: temporary
        ? "Run the check again; if it stays so, ask whoever hosts the domain's DNS."
        : `Correct the record (at most ${LOOKUP_LIMIT} include/a/mx/exists/redirect terms in all: replace includes you do not use, or by their ip4:/ip6: ranges).`,
    };
  }
  const refused = outcomes.filter(({ outcome }) => outcome.result !== "pass");
  if (refused.length > 0) {
    const ips = refused.map(({ ip }) => ip);
    return {
      topic,
      status: "fix",
      says: `${domain}'s SPF record${record} does not allow the relay ${relay.host} (${list(ips)}): the result is ${refused[0]?.outcome.result} (${refused[0]?.outcome.reason}).`,
      fix: `Add ${ipTerms(ips)} to the record before its \`all\` term (or the include: your relay's documentation gives).`,
    };
  }
  const lookups = Math.max(...outcomes.map(({ outcome }) => outcome.lookups));
  return {
    topic,
    status: "ok",
    says: `${domain}'s SPF record allows the relay ${relay.host} (${list(relay.addresses)}): ${first.reason}; ${lookups} of ${LOOKUP_LIMIT} DNS lookups used.`,
  };
}

export function assessSpfWithoutRelay(domain: string, txt: Lookup<string>): Finding {
  const topic = "SPF";
  if (failed(txt)) return { topic, status: "fix", says: `the TXT lookup of ${domain} failed: ${txt.error}.` };
  const record = txt.records.find((value) => /^v=spf1(?: |$)/i.test(value.trim()));
  return record
    ? {
        topic,
        status: "note",
        says: `${domain} has an SPF record (\`${record}\`); SMTP_URL names no relay to check it against.`,
      }
    : {
        topic,
        status: "fix",
        says: `${domain} has no SPF record.`,
        fix: `Publish a TXT record at ${domain} allowing your relay, e.g. "v=spf1 include:<your relay's SPF domain> ~all".`,
      };
}

export interface DkimInputs {
  selector?: string;
  /** DKIM_DOMAIN, or the From domain. */
  domain: string;
  /** The key the app signs with, when it does. */
  privateKey?: KeyObject;
  /** The TXT lookup at `<selector>._domainkey.<domain>`, when there is a selector. */
  txt?: Lookup<string>;
}

export function assessDkim({ selector, domain, privateKey, txt }: DkimInputs): Finding {
  const topic = "DKIM";
  if (!selector || !txt) {
    return {
      topic,
      status: "note",
      says: "DKIM_SELECTOR is not set, so the check cannot look up a DKIM key.",
      fix: "If your relay signs for your domain, publish the DKIM record it gives you and set DKIM_SELECTOR to its selector to check it; otherwise sign here with DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY (docs/newsletter.md).",
    };
  }
  const name = `${selector}._domainkey.${domain}`;
  const value = privateKey ? dkimRecordFor(privateKey) : "";
  // A TXT string holds 255 characters: a 2048-bit key's record is longer, and some DNS hosts want it cut by hand.
  const long = value.length > 255 ? " (if your DNS host asks, as two quoted strings one after the other)" : "";
  const publish = privateKey ? `Publish a TXT record at ${name}${long}: "${value}".` : undefined;
  if (failed(txt)) return { topic, status: "fix", says: `the lookup of ${name} failed: ${txt.error}.` };
  const found = txt.records.find((value) => /(^|;)\s*p\s*=/.test(value));
  if (!found) {
    return {
      topic,
      status: "fix",
      says: `no DKIM key is published at ${name}: receivers cannot verify the signature.`,
      fix: publish ?? `Publish the DKIM record your relay gives you at ${name}.`,
    };
  }
  const parsed = parseDkimRecord(found);
  if ("error" in parsed)
    return {
      topic,
      status: "fix",
      says: `the record at ${name} is not a DKIM key: ${parsed.error}.`,
      ...(publish ? { fix: publish } : {}),
    };
  if (parsed.record.publicKey === "") {
    return {
      topic,
      status: "fix",
      says: `the key at ${name} is revoked (empty p=).`,
      fix: publish ?? "Publish your relay's current key.",
    };
  }
  if (!privateKey)
    return { topic, status: "ok", says: `a DKIM key is published at ${name} (the relay signs with it).` };
  if (!recordMatchesKey(parsed.record, privateKey)) {
    return {
      topic,
      status: "fix",
      says: `the key published at ${name} is not the public half of DKIM_PRIVATE_KEY: every signature would fail.`,
      ...(publish ? { fix: `Replace it: ${publish}` } : {}),
    };
  }
  return {
    topic,
    status: "ok",
    says: `the key published at ${name} matches DKIM_PRIVATE_KEY: mails are signed for ${domain}.`,
  };
}

export interface DmarcInputs {
  fromDomain: string;
  /** The lookups of dmarcNames(fromDomain), in order. */
  lookups: { name: string; txt: Lookup<string> }[];
  spfPasses: boolean;
  /** The domain mails are DKIM-signed for with a published, matching key (ours or the relay's), if any. */
  dkimDomain?: string;
}

function dmarcFound(lookups: DmarcInputs["lookups"]): { name: string; text: string } | { error: string } | null {
  for (const { name, txt } of lookups) {
    if (failed(txt)) return { error: `the lookup of ${name} failed: ${txt.error}` };
    const text = txt.records.find(isDmarcRecord);
    if (text) return { name, text };
  }
  return null;
}

function dmarcPasses(record: DmarcRecord, inputs: DmarcInputs): boolean {
  // Nodemailer's envelope sender is MAIL_FROM itself, so SPF's domain is the From domain: aligned in either mode.
  const dkimAligned = inputs.dkimDomain !== undefined && aligned(inputs.fromDomain, inputs.dkimDomain, record.adkim);
  return inputs.spfPasses || dkimAligned;
}

export function assessDmarc(inputs: DmarcInputs): Finding {
  const topic = "DMARC";
  const { fromDomain } = inputs;
  const found = dmarcFound(inputs.lookups);
  const suggest = `"v=DMARC1; p=none; rua=mailto:dmarc@${fromDomain}"`;
  if (found && "error" in found) return { topic, status: "fix", says: `${found.error}.` };
  if (!found) {
    return {
      topic,
      status: "fix",
      says: `${fromDomain} has no DMARC record: Gmail, Yahoo and Microsoft require one from bulk senders.`,
      fix: `Publish a TXT record at _dmarc.${fromDomain}: ${suggest} (p=none to start; quarantine once the reports show your mails pass).`,
    };
  }
  const parsed = parseDmarc(found.text);
  if ("error" in parsed)
    return {
      topic,
      status: "fix",
      says: `the record at ${found.name} is not valid DMARC: ${parsed.error}.`,
      fix: `Replace it with ${suggest}.`,
    };
  const record = parsed.record;
  const passes = dmarcPasses(record, inputs);
  const how = inputs.spfPasses
    ? "SPF passes for the From domain"
    : inputs.dkimDomain
      ? `DKIM signs for ${inputs.dkimDomain}`
      : "";
  if (!passes) {
    return {
      topic,
      status: "fix",
      says: `${found.name} says p=${record.policy}, and neither an aligned SPF pass nor an aligned DKIM signature would back mails from ${fromDomain}: ${record.policy === "none" ? "receivers would distrust them" : `receivers would ${record.policy} them`}.`,
      fix: "Fix the SPF and DKIM findings above; DMARC passes when either one passes for the From domain.",
    };
  }
  if (record.policy === "none") {
    return {
      topic,
      status: "note",
      says: `${found.name} says p=none: DMARC passes (${how}), but the domain asks receivers to do nothing with mail that fails, so anyone can send as ${fromDomain}.`,
      fix: `Once the reports${record.rua ? "" : " (add rua=mailto:…)"} show your mails pass, move to p=quarantine.`,
    };
  }
  return {
    topic,
    status: "ok",
    says: `${found.name} says p=${record.policy}, and DMARC passes for ${fromDomain} (${how}).`,
  };
}
