// A DMARC record (RFC 7489 section 6.3) and what it means for mail sent as MAIL_FROM: pure, unit tested.

export type DmarcPolicy = "none" | "quarantine" | "reject";

export interface DmarcRecord {
  policy: DmarcPolicy;
  /** The policy for subdomains (sp=), the policy when absent. */
  subdomainPolicy: DmarcPolicy;
  /** Alignment modes: relaxed (the same organizational domain) unless `s`. */
  adkim: "r" | "s";
  aspf: "r" | "s";
  pct: number;
  /** Where aggregate reports go (rua=), as written. */
  rua?: string;
}

export type DmarcParse = { record: DmarcRecord } | { error: string };

const POLICIES = new Set(["none", "quarantine", "reject"]);

export const isDmarcRecord = (txt: string): boolean => /^v\s*=\s*DMARC1\s*(;|$)/.test(txt.trim());

export function parseDmarc(txt: string): DmarcParse {
  const tags = new Map<string, string>();
  for (const part of txt.split(";")) {
    const [name, ...value] = part.split("=");
    if (name?.trim()) tags.set(name.trim().toLowerCase(), value.join("=").trim());
  }
  const p = tags.get("p")?.toLowerCase();
  if (p === undefined) return { error: "the record has no policy (p=none, p=quarantine or p=reject)" };
  if (!POLICIES.has(p)) return { error: `p=${p} is not a policy (none, quarantine or reject)` };
  const sp = tags.get("sp")?.toLowerCase();
  const mode = (tag: string) => (tags.get(tag)?.toLowerCase() === "s" ? "s" : "r");
  const pct = Number(tags.get("pct") ?? "100");
  const rua = tags.get("rua");
  return {
    record: {
      policy: p as DmarcPolicy,
      subdomainPolicy: sp && POLICIES.has(sp) ? (sp as DmarcPolicy) : (p as DmarcPolicy),
      adkim: mode("adkim"),
      aspf: mode("aspf"),
      pct: Number.isInteger(pct) && pct >= 0 && pct <= 100 ? pct : 100,
      ...(rua ? { rua } : {}),
    },
  };
}

// Two-label public suffixes common enough to matter for a maker's domain. The full Public Suffix List would be exact;
// the check only needs "same organization" for the usual cases, and says "relaxed" alignment is approximate.
const TWO_LABEL_SUFFIXES = new Set([
  "co.uk",
  "org.uk",
  "me.uk",
  "ac.uk",
  "com.au",
  "net.au",
  "org.au",
  "co.nz",
  "co.jp",
  "com.br",
  "com.mx",
  "co.za",
  "com.tr",
  "co.in",
  "co.kr",
  "com.cn",
  "com.tw",
  "com.sg",
  "com.ar",
]);

/** The organizational domain (RFC 7489 section 3.2), approximated: the registrable part under a known suffix. */
export function organizationalDomain(domain: string): string {
  const labels = domain.toLowerCase().replace(/\.$/, "").split(".");
  const keep = TWO_LABEL_SUFFIXES.has(labels.slice(-2).join(".")) ? 3 : 2;
  return labels.slice(-keep).join(".");
}

/** Whether an authenticated domain (DKIM d=, SPF's envelope domain) aligns with the From domain in that mode. */
export function aligned(fromDomain: string, authenticated: string, mode: "r" | "s"): boolean {
  const a = fromDomain.toLowerCase();
  const b = authenticated.toLowerCase();
  return mode === "s" ? a === b : organizationalDomain(a) === organizationalDomain(b);
}

/** Where the record for a From domain is: `_dmarc.<domain>`, then the organizational domain's (section 6.6.3). */
export function dmarcNames(fromDomain: string): string[] {
  const org = organizationalDomain(fromDomain);
  const own = `_dmarc.${fromDomain.toLowerCase()}`;
  return org === fromDomain.toLowerCase() ? [own] : [own, `_dmarc.${org}`];
}
