// The check's outside text and its time: DNS answers (and a relay's words) are printed with control characters
// escaped, and a DNS server that answers slowly cannot stretch the check past its budget.
import { describe, expect, it } from "vitest";
import { dnsLookups } from "~/mail/domain-check/dns.server";
import { failed } from "~/mail/domain-check/lookups";
import { printable, renderReport } from "~/mail/domain-check/report";
import { checkHost } from "~/mail/domain-check/spf-evaluate";

describe("outside text in the report", () => {
  it("is printed with escapes for control and invisible characters, never raw", () => {
    expect(printable("v=spf1 \u001b[2J\u001b]0;pwned\u0007 -all")).toBe("v=spf1 \\x1b[2J\\x1b]0;pwned\\x07 -all");
    expect(printable("abc\u202edef\r\nx")).toBe("abc\\u202edef\\x0d\\x0ax");
    const text = renderReport({ from: "a@example.com", domain: "example.com", relay: "smtp://h:587" }, [
      { topic: "SPF", status: "fix", says: "the record (`v=spf1 \u001b[31m -all`) is odd.", fix: "Fix \u0007 it." },
    ]);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain("`v=spf1 \\x1b[31m -all`");
    expect(text).toContain("Fix \\x07 it.");
  });
});

describe("the check's DNS budget", () => {
  it("ends a chain of slow answers at the budget, saying the lookups it did not send", async () => {
    // Every answer takes 150 ms; the record includes the next name ten deep, so the chain alone would take longer
    // than the budget given here.
    const slow = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 150));
    const resolver = {
      resolveTxt: (name: string) => {
        const depth = Number(/^d(\d+)\./.exec(name)?.[1] ?? 0);
        return slow([[`v=spf1 include:d${depth + 1}.example.com -all`]]);
      },
      resolve4: () => slow([]),
      resolve6: () => slow([]),
      resolveMx: () => slow([]),
    } as unknown as Parameters<typeof dnsLookups>[0];
    const dns = dnsLookups(resolver, 3_000, 600);
    const started = Date.now();
    const outcome = await checkHost(dns, "192.0.2.1", "a@d0.example.com");
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(JSON.stringify(outcome)).toContain("ran out");
    const after = await dns.txt("late.example.com");
    expect(failed(after) && after.error).toBe("not asked: the check's 0.6 s for DNS ran out");
  });
});
