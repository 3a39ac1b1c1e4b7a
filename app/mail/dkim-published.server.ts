/**
 * Whether the DKIM key this server signs with is the one published in DNS: the same lookup and judgement as
 * `npm run newsletter -- check` (assessDkim), asked by `send` before it starts, and remembered for a day in a small
 * file beside the outbox (`dkim-check.json`: the record's digest and when it matched, never the key), so a send asks
 * DNS once a day, not once a run. A key that does not match would fail every signature, and under DMARC `p=reject`
 * every receiver would refuse every reader: that send is refused before it touches one.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { Resolver } from "node:dns/promises";
import { dkimKeyOf } from "~/mail/dkim.server";
import { assessDkim } from "~/mail/domain-check/assess";
import { dkimRecordFor } from "~/mail/domain-check/dkim-record";
import { createResolver, dnsLookups } from "~/mail/domain-check/dns.server";
import { failed } from "~/mail/domain-check/lookups";
import type { CheckEnv } from "~/mail/domain-check/check.server";

export const DKIM_CHECK_FILE_NAME = "dkim-check.json";
/** How long a match is trusted before DNS is asked again. */
export const DKIM_CHECK_FOR_MS = 24 * 60 * 60_000;

export type DkimPublished =
  /** This server signs nothing: there is no key of ours to compare. */
  | { kind: "not-signing" }
  | { kind: "matches"; cached: boolean }
  /** DNS could not be asked: said, and the send goes on. */
  | { kind: "unknown"; reason: string }
  | { kind: "mismatch"; reason: string };

interface Remembered {
  digest: string;
  matchedAt: number;
}

function remembered(file: string): Remembered | null {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<Remembered>;
    return typeof value.digest === "string" && typeof value.matchedAt === "number"
      ? { digest: value.digest, matchedAt: value.matchedAt }
      : null;
  } catch {
    return null;
  }
}

export async function dkimPublished(
  env: CheckEnv,
  file: string,
  { resolver, now = Date.now() }: { resolver?: Resolver; now?: number } = {},
): Promise<DkimPublished> {
  const key = dkimKeyOf(env);
  if (!key) return { kind: "not-signing" };
  const name = `${key.selector}._domainkey.${key.domain}`;
  const digest = createHash("sha256")
    .update(`${name}\n${dkimRecordFor(key.privateKey)}`)
    .digest("hex");
  const known = remembered(file);
  if (known?.digest === digest && now - known.matchedAt < DKIM_CHECK_FOR_MS) return { kind: "matches", cached: true };
  const txt = await dnsLookups(resolver ?? createResolver(env.DNS_RESOLVER)).txt(name);
  if (failed(txt)) return { kind: "unknown", reason: `the lookup of ${name} failed: ${txt.error}` };
  const finding = assessDkim({ selector: key.selector, domain: key.domain, txt, privateKey: key.privateKey });
  if (finding.status !== "ok") {
    return { kind: "mismatch", reason: `${finding.says}${finding.fix ? ` ${finding.fix}` : ""}` };
  }
  try {
    writeFileSync(file, `${JSON.stringify({ digest, matchedAt: now } satisfies Remembered)}\n`);
  } catch {
    // Not remembered: the next send asks DNS again, nothing worse.
  }
  return { kind: "matches", cached: false };
}
