// The domain check's DNS: node:dns's own resolver (the system's servers, or DNS_RESOLVER's), each lookup bounded.
// "No such name" and "no such record" are answers (an empty list); a timeout, a refusal or a server failure is said
// as what it is, and the check goes on with the next question.
import { Resolver } from "node:dns/promises";
import { type DnsLookups, type Lookup, type MxRecord } from "~/mail/domain-check/lookups";

export const LOOKUP_TIMEOUT_MS = 3_000;

const EMPTY = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

const WORDS: Record<string, string> = {
  ETIMEOUT: "no answer in time",
  ECONNREFUSED: "the DNS server refused the connection",
  ESERVFAIL: "the DNS server failed (SERVFAIL)",
  EREFUSED: "the DNS server refused the query",
  EBADRESP: "the DNS server's answer was malformed",
  ECANCELLED: "no answer in time",
};

/** A resolver address such as `127.0.0.1:5353` or `[::1]:53`, as DNS_RESOLVER holds it. */
export function createResolver(server?: string, timeoutMs = LOOKUP_TIMEOUT_MS): Resolver {
  // One try of `timeoutMs`: the check's own bound below is the one the owner waits for.
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (server) resolver.setServers([server]);
  return resolver;
}

async function bounded<T>(timeoutMs: number, query: () => Promise<T[]>): Promise<Lookup<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs + 500);
  });
  try {
    const answer = await Promise.race([query(), late]);
    // Not resolver.cancel(): it would end the other lookups in flight too; c-ares gives this one up by itself.
    if (answer === "late") return { error: WORDS.ETIMEOUT ?? "no answer in time" };
    return { records: answer };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (EMPTY.has(code)) return { records: [] };
    return { error: WORDS[code] ?? (code || String(error)) };
  } finally {
    clearTimeout(timer);
  }
}

/** The check's lookups through one node:dns Resolver. */
export function dnsLookups(resolver: Resolver, timeoutMs = LOOKUP_TIMEOUT_MS): DnsLookups {
  return {
    txt: (name) => bounded(timeoutMs, async () => (await resolver.resolveTxt(name)).map((parts) => parts.join(""))),
    a: (name) => bounded(timeoutMs, () => resolver.resolve4(name)),
    aaaa: (name) => bounded(timeoutMs, () => resolver.resolve6(name)),
    mx: (name) => bounded<MxRecord>(timeoutMs, () => resolver.resolveMx(name)),
  };
}
