// Behind a trusted proxy: one rate-limit key per visitor however its address is written, forwarded headers
// checked, every one-click unsubscribe honoured, forged addresses escaped in the log.
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postForm } from "../../support/newsletter/http";
import { serverHarness, type ServerProcess } from "../../support/production-server";
import { rawRequest } from "../../support/raw-http";
import { STACK_LINE, expectSecurityHeaders, body } from "../../support/abuse";

const harness = serverHarness("portfolio-abuse-");

describe("rate limits behind a proxy: one key per visitor", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await harness.start({ TRUST_PROXY: "true", SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "2" });
  });
  afterAll(() => harness.cleanup());

  async function outcomes(forwardedFor: string[], prefix: string) {
    const statuses: string[] = [];
    for (const [i, address] of forwardedFor.entries()) {
      const toast = await subscribeVia(address, `${prefix}-${i}@example.com`);
      statuses.push(toast);
    }
    return statuses;
  }

  async function subscribeVia(forwardedFor: string, email: string) {
    const posted = await postForm(server.url, new URLSearchParams({ email, website: "" }), {
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Forwarded-For": forwardedFor,
    });
    const page = await fetch(`${server.url}/`, { headers: { Cookie: posted.cookie ?? "" } });
    const html = await page.text();
    return /Something went wrong/.test(html) ? "refused" : "stored";
  }

  it("counts an IPv4 address written four ways as one visitor", async () => {
    expect(
      await outcomes(["198.51.100.7", "198.51.100.7:5555", "::ffff:198.51.100.7", "[198.51.100.7]"], "ipv4"),
    ).toEqual(["stored", "stored", "refused", "refused"]);
  });

  it("counts an IPv6 client by its /64, so rotating addresses within it does not reset the limit", async () => {
    expect(
      await outcomes(["2001:db8:1:2::1", "2001:db8:1:2::2", "[2001:db8:1:2:ffff::3]:443", "2001:db8:1:3::1"], "ipv6"),
    ).toEqual(["stored", "stored", "refused", "stored"]);
  });
});

describe("behind a trusted proxy: forwarded headers checked, every unsubscribe honoured, addresses escaped", () => {
  let server: ServerProcess;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = harness.scratchDir();
    server = await harness.start({ TRUST_PROXY: "true", SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "2", DATA_DIR: dataDir });
  });
  afterAll(() => harness.cleanup());

  it.each(["x:65536", "x:-1", "example.com,:65536", "example.com, x:99999", "example.com, x:0", "example.com,"])(
    "refuses X-Forwarded-Host: %s with 400 and the usual headers",
    async (forwardedHost) => {
      const before = server.output().length;
      const response = await fetch(`${server.url}/healthz`, { headers: { "X-Forwarded-Host": forwardedHost } });
      expect(response.status).toBe(400);
      expectSecurityHeaders(response.headers);
      expect(server.output().slice(before)).not.toMatch(STACK_LINE);
    },
  );

  it("takes a well-formed X-Forwarded-Host chain", async () => {
    const response = await fetch(`${server.url}/healthz`, {
      headers: { "X-Forwarded-Host": "example.com, proxy.internal:8080" },
    });
    expect(response.status).toBe(200);
  });

  const tokenOf = (email: string) => {
    const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"), { readOnly: true });
    try {
      return (
        db.prepare("select unsubscribe_token as token from newsletter_subscribers where email = ?").get(email) as
          { token: string } | undefined
      )?.token;
    } finally {
      db.close();
    }
  };

  const oneClick = (token: string, forwardedFor: string) =>
    fetch(`${server.url}/unsubscribe?token=${token}`, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": forwardedFor },
    });

  it("honours every one-click unsubscribe from one mail provider's address; only unknown tokens are limited", async () => {
    const readers = Array.from({ length: 8 }, (_, i) => `one-click-${i}@example.com`);
    for (const [i, email] of readers.entries()) {
      // Each reader signs up from an address of their own (the sign-up limit is two a minute per address).
      const posted = await postForm(server.url, body(email), {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Forwarded-For": `198.51.100.${i + 10}`,
      });
      expect(posted.status).toBe(303);
    }
    const tokens = readers.map((email) => tokenOf(email)!);
    expect(tokens.every(Boolean)).toBe(true);
    // A mail provider posts them all from one shared address.
    const statuses: number[] = [];
    for (const token of tokens) {
      const response = await oneClick(token, "192.0.2.25");
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual(readers.map(() => 200));
    expect(readers.filter((email) => tokenOf(email) !== undefined)).toEqual([]);
    // Tokens that belong to nobody (here: already used) count: two a minute, then 429.
    const unknown: number[] = [];
    for (const token of tokens.slice(0, 3)) {
      const response = await oneClick(token, "192.0.2.25");
      await response.arrayBuffer();
      unknown.push(response.status);
    }
    expect(unknown).toEqual([200, 200, 429]);
  });

  it("escapes a forged client address in every log line", async () => {
    const before = server.output().length;
    // What Node's parser lets through in a header: a tab and the C1 controls (bytes 0x80–0x9F: NEL, CSI).
    const forged = "203.0.113.9\t\u0085forged\u009b2K";
    const response = await rawRequest(
      server.url,
      "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
        `X-Forwarded-For: ${forged}\r\n` +
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 41",
      "email=bot%40example.com&website=spam.test",
    );
    expect(response.status).toBe(303);
    const log = server.output().slice(before);
    expect(log).toContain("honeypot");
    // eslint-disable-next-line no-control-regex -- the point: no raw control character reaches the log
    expect(log).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(log).toContain("\\u0085forged");
  });
});
