import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadDkimKey, nodemailerDkim } from "~/mail/dkim.server";
import { parseSettings } from "~/server-build/settings.server";

const pem = (bits: number) =>
  generateKeyPairSync("rsa", { modulusLength: bits }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const rsa = pem(1024);
const base = { NODE_ENV: "test", MAIL_FROM: "Alex <updates@example.com>" };

function envError(source: Record<string, string>): string {
  try {
    parseSettings({ ...base, ...source });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the environment was accepted");
}

describe("DKIM settings", () => {
  it("sign for MAIL_FROM's domain unless DKIM_DOMAIN says otherwise, covering both List-Unsubscribe fields", () => {
    const key = loadDkimKey({
      ...base,
      DKIM_SELECTOR: "s2026",
      DKIM_PRIVATE_KEY: rsa,
      DKIM_DOMAIN: undefined,
      DKIM_PRIVATE_KEY_FILE: undefined,
    });
    expect(key).toMatchObject({ domain: "example.com", selector: "s2026" });
    const options = nodemailerDkim(key!);
    expect(options.headerFieldNames.split(":")).toEqual(
      expect.arrayContaining([
        "From",
        "Subject",
        "Date",
        "Message-ID",
        "List-Id",
        "List-Unsubscribe",
        "List-Unsubscribe-Post",
      ]),
    );
    expect(
      parseSettings({
        ...base,
        DKIM_SELECTOR: "s2026",
        DKIM_PRIVATE_KEY: rsa.replace(/\n/g, "\\n"),
        DKIM_DOMAIN: "mail.example.com",
      }).DKIM_DOMAIN,
    ).toBe("mail.example.com");
  });

  it("read the key from DKIM_PRIVATE_KEY_FILE", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "dkim-")), "key.pem");
    writeFileSync(file, rsa);
    expect(parseSettings({ ...base, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY_FILE: file }).DKIM_PRIVATE_KEY_FILE).toBe(
      file,
    );
    expect(envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY_FILE: `${file}.missing` })).toBe(
      "Invalid environment: DKIM_PRIVATE_KEY_FILE cannot be read (ENOENT)",
    );
  });

  it("stop the start with a line naming the variable, never the key", () => {
    // A line of the key's body lost (a bad copy and paste): the PEM frame is intact, its content is not.
    const broken = rsa
      .split("\n")
      .filter((_, index) => index !== 3)
      .join("\n");
    const message = envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: broken });
    expect(message).toMatch(/^Invalid environment: DKIM_PRIVATE_KEY is not a PEM private key/);
    expect(message).not.toContain(rsa.split("\n")[1]);
    expect(envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: "not a key" })).toMatch(
      /^Invalid environment: DKIM_PRIVATE_KEY is not a PEM/,
    );
    const ed = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: ed })).toMatch(
      /^Invalid environment: DKIM_PRIVATE_KEY must be an RSA key/,
    );
    expect(envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: pem(512) })).toMatch(/DKIM_PRIVATE_KEY is a 512-bit key/);
    expect(envError({ DKIM_PRIVATE_KEY: rsa })).toBe(
      "Invalid environment: DKIM_SELECTOR is required with DKIM_PRIVATE_KEY (e.g. mail2026)",
    );
    expect(envError({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: rsa, DKIM_PRIVATE_KEY_FILE: "/x" })).toBe(
      "Invalid environment: DKIM_PRIVATE_KEY_FILE and DKIM_PRIVATE_KEY are both set: keep one",
    );
    expect(envError({ DKIM_SELECTOR: "bad selector" })).toMatch(/DKIM_SELECTOR must be a DNS label/);
  });

  it("and the other new settings are checked too", () => {
    expect(envError({ MAIL_REPLY_TO: "not an address" })).toMatch(
      /^Invalid environment: MAIL_REPLY_TO must be an address/,
    );
    expect(parseSettings({ ...base, MAIL_REPLY_TO: "Alex <alex@example.org>" }).MAIL_REPLY_TO).toBe(
      "Alex <alex@example.org>",
    );
    expect(envError({ DNS_RESOLVER: "dns.example:53" })).toMatch(
      /^Invalid environment: DNS_RESOLVER must be an IP address/,
    );
    expect(parseSettings({ ...base, DNS_RESOLVER: "[::1]:5353" }).DNS_RESOLVER).toBe("[::1]:5353");
  });
});
