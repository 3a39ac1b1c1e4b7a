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

/** The whole check's bound: slow answers to a long chain of lookups (SPF includes) end here, each said. */
export const CHECK_BUDGET_MS = 20_000;

async function bounded<T>(timeoutMs: number, query: () => Promise<T[]>, budgetMs: number): Promise<Lookup<T>> {
  if (timeoutMs <= 0) return { error: `not asked: the check's ${budgetMs / 1000} s for DNS ran out` };
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

/**
 * The check's lookups through one node:dns Resolver: each bounded by `timeoutMs`, and all of them by `budgetMs` from
 * now (a lookup asked after that is not sent, and says why).
 */
export function dnsLookups(
  resolver: Pick<Resolver, "resolveTxt" | "resolve4" | "resolve6" | "resolveMx">,
  timeoutMs = LOOKUP_TIMEOUT_MS,
  budgetMs = CHECK_BUDGET_MS,
): DnsLookups {
  const deadline = Date.now() + budgetMs;
  const left = () => Math.min(timeoutMs, deadline - Date.now());
  return {
    txt: (name) =>
      bounded(left(), async () => (await resolver.resolveTxt(name)).map((parts) => parts.join("")), budgetMs),
    a: (name) => bounded(left(), () => resolver.resolve4(name), budgetMs),
    aaaa: (name) => bounded(left(), () => resolver.resolve6(name), budgetMs),
    mx: (name) => bounded<MxRecord>(left(), () => resolver.resolveMx(name), budgetMs),
  };
}
