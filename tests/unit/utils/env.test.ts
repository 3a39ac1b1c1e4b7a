import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parseSettings } from "~/server-build/settings.server";
import { backupDirectory, ENV_VARIABLES, EnvError } from "~/utils/env.server";

const SECRET = "s".repeat(32);
const production = (extra: Record<string, string | undefined> = {}) => ({
  NODE_ENV: "production",
  SESSION_SECRET: SECRET,
  ...extra,
});

/** The EnvError's lines for `source`, or a failure when it parses. */
function problems(source: Record<string, string | undefined>): string[] {
  try {
    parseSettings(source);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as EnvError).message.split("\n");
  }
  throw new Error("expected the environment to be refused");
}

describe("parseSettings", () => {
  it("gives every default for an empty development environment", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const env = parseSettings({});
    warn.mockRestore();
    expect(env).toMatchObject({
      NODE_ENV: "development",
      PORT: 3000,
      HOST: "0.0.0.0",
      DATA_DIR: "./data",
      BACKUP_KEEP: 7,
      TRUST_PROXY: false,
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: 5,
      LATEST_POST_TIMEOUT_MS: 1500,
      LATEST_POST_HARD_LIMIT_MS: 10_000,
      LATEST_POST_TTL_SECONDS: 300,
      LATEST_POST_FAILURE_TTL_SECONDS: 30,
      ALLOW_INDEXING: true,
      UPDATES_DIR: "app/content/updates",
      WELCOME_FILE: "app/content/welcome.md",
      // The server looks for a send the command left every 15 s; only tests shorten it.
      MAIL_RESUME_CHECK_SECONDS: 15,
      // A mail the relay could not take goes again 10 s later; the send command stays for a retry due within 15 s.
      MAIL_FIRST_RETRY_SECONDS: 10,
      MAIL_RETRY_HOLD_SECONDS: 15,
    });
    expect(env.SUPABASE_URL).toBeUndefined();
    expect(env.SUPABASE_ANON_KEY).toBeUndefined();
    expect(env.BACKUP_DIR).toBeUndefined();
    expect(backupDirectory(env)).toBe(path.resolve("data", "backups"));
  });

  it("reads every variable", () => {
    const env = parseSettings(
      production({
        PORT: "8080",
        HOST: "127.0.0.1",
        SUPABASE_URL: "https://abc.supabase.co",
        SUPABASE_ANON_KEY: "anon-key",
        DATA_DIR: "/data",
        BACKUP_DIR: "/backups",
        BACKUP_KEEP: "30",
        TRUST_PROXY: "true",
        SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
        LATEST_POST_TIMEOUT_MS: "250",
        LATEST_POST_HARD_LIMIT_MS: "4000",
        LATEST_POST_TTL_SECONDS: "0",
        LATEST_POST_FAILURE_TTL_SECONDS: "5",
        ALLOW_INDEXING: "false",
        PERF_TWEAKS: "off",
        UPDATES_DIR: "/updates",
        WELCOME_FILE: "/content/welcome.md",
        MAIL_RESUME_CHECK_SECONDS: "2",
        MAIL_FIRST_RETRY_SECONDS: "1",
        MAIL_RETRY_HOLD_SECONDS: "0",
      }),
    );
    expect(env).toEqual({
      NODE_ENV: "production",
      PORT: 8080,
      HOST: "127.0.0.1",
      SESSION_SECRET: SECRET,
      SUPABASE_URL: "https://abc.supabase.co",
      SUPABASE_ANON_KEY: "anon-key",
      DATA_DIR: "/data",
      BACKUP_DIR: "/backups",
      BACKUP_KEEP: 30,
      TRUST_PROXY: true,
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: 0,
      LATEST_POST_TIMEOUT_MS: 250,
      LATEST_POST_HARD_LIMIT_MS: 4000,
      LATEST_POST_TTL_SECONDS: 0,
      LATEST_POST_FAILURE_TTL_SECONDS: 5,
      ALLOW_INDEXING: false,
      PERF_TWEAKS: "off",
      UPDATES_DIR: "/updates",
      WELCOME_FILE: "/content/welcome.md",
      // The mail path's defaults (mail itself stays off without SMTP_URL).
      MAIL_MAX_PER_HOUR: 100,
      CONFIRM_MAILS_PER_VISITOR: 10,
      MAIL_RATE_PER_SECOND: 2,
      MAIL_RESUME_CHECK_SECONDS: 2,
      MAIL_FIRST_RETRY_SECONDS: 1,
      MAIL_RETRY_HOLD_SECONDS: 0,
    });
  });

  it.each([
    ["1", true],
    ["yes", true],
    ["true", true],
    ["0", false],
    ["no", false],
    ["false", false],
  ])("reads the flag value %s as %s", (value, expected) => {
    expect(parseSettings(production({ TRUST_PROXY: value })).TRUST_PROXY).toBe(expected);
  });

  it.each(["0", "-1", "seven", "1001"])("refuses BACKUP_KEEP=%s, naming it", (value) => {
    expect(() => parseSettings(production({ BACKUP_KEEP: value }))).toThrow(/^Invalid environment: BACKUP_KEEP /);
  });

  it("reads the relays' webhook settings, each unset by default", () => {
    const settings = {
      RESEND_WEBHOOK_SECRET: `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
      POSTMARK_WEBHOOK_AUTH: "postmark:pa55:a word",
      MAILGUN_WEBHOOK_SIGNING_KEY: "0123456789abcdef0123456789abcdef",
      BREVO_WEBHOOK_AUTH: "brevo:secret",
      SES_WEBHOOK_TOPIC_ARN: "arn:aws:sns:eu-west-1:123456789012:ses-bounces",
      POSTMARK_MESSAGE_STREAM: "broadcast",
    };
    expect(parseSettings(production(settings))).toMatchObject(settings);
    const unset = parseSettings(production());
    for (const name of Object.keys(settings)) expect(unset[name as keyof typeof unset]).toBeUndefined();
  });

  it("treats an empty or blank value as unset", () => {
    const env = parseSettings(production({ PORT: "", SUPABASE_URL: " ", SUPABASE_ANON_KEY: "", ALLOW_INDEXING: "" }));
    expect(env.PORT).toBe(3000);
    expect(env.SUPABASE_URL).toBeUndefined();
    expect(env.ALLOW_INDEXING).toBe(true);
  });

  describe("in development", () => {
    it("uses a random secret per process, with a warning, when SESSION_SECRET is unset", () => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const first = parseSettings({ NODE_ENV: "development" }).SESSION_SECRET;
      const second = parseSettings({ NODE_ENV: "development" }).SESSION_SECRET;
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn.mock.calls[0]?.[0]).toMatch(/SESSION_SECRET is not set/);
      warn.mockRestore();
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect(second).not.toBe(first);
    });

    it("keeps a secret that is set, without a warning", () => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      expect(parseSettings({ NODE_ENV: "development", SESSION_SECRET: SECRET }).SESSION_SECRET).toBe(SECRET);
      expect(warn).not.toHaveBeenCalled();
      warn.mockRestore();
    });
  });

  describe("refuses a bad value with one line naming the variable", () => {
    it.each<[string, Record<string, string>, string]>([
      ["NODE_ENV", { NODE_ENV: "prod" }, "NODE_ENV must be production, development or test"],
      ["PORT not a number", { PORT: "abc" }, "PORT must be a whole number"],
      ["PORT negative", { PORT: "-1" }, "PORT must be a whole number"],
      ["PORT zero", { PORT: "0" }, "PORT must be at least 1"],
      ["PORT too large", { PORT: "70000" }, "PORT must be at most 65535"],
      ["SESSION_SECRET short", { SESSION_SECRET: "too-short" }, "SESSION_SECRET must be at least 32 characters"],
      ["SESSION_SECRET unset", { SESSION_SECRET: "" }, "SESSION_SECRET is required in production"],
      ["SUPABASE_URL not a URL", { SUPABASE_URL: "abc", SUPABASE_ANON_KEY: "k" }, "SUPABASE_URL must be a URL"],
      [
        "SUPABASE_URL scheme",
        { SUPABASE_URL: "ftp://abc.supabase.co", SUPABASE_ANON_KEY: "k" },
        "SUPABASE_URL must start with https:// or http://",
      ],
      ["SUPABASE_URL alone", { SUPABASE_URL: "https://abc.supabase.co" }, "SUPABASE_ANON_KEY must be set together"],
      ["SUPABASE_ANON_KEY alone", { SUPABASE_ANON_KEY: "k" }, "SUPABASE_URL must be set together"],
      ["TRUST_PROXY", { TRUST_PROXY: "maybe" }, "TRUST_PROXY must be true or false"],
      [
        "rate limit",
        { SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "five" },
        "SUBSCRIBE_RATE_LIMIT_PER_MINUTE must be a whole number",
      ],
      ["timeout zero", { LATEST_POST_TIMEOUT_MS: "0" }, "LATEST_POST_TIMEOUT_MS must be at least 1"],
      ["timeout fraction", { LATEST_POST_TIMEOUT_MS: "1.5" }, "LATEST_POST_TIMEOUT_MS must be a whole number"],
      ["TTL too long", { LATEST_POST_TTL_SECONDS: "86401" }, "LATEST_POST_TTL_SECONDS must be at most 86400"],
      [
        "failure TTL",
        { LATEST_POST_FAILURE_TTL_SECONDS: "30s" },
        "LATEST_POST_FAILURE_TTL_SECONDS must be a whole number",
      ],
      ["ALLOW_INDEXING", { ALLOW_INDEXING: "nope" }, "ALLOW_INDEXING must be true or false"],
      ["PERF_TWEAKS", { PERF_TWEAKS: "false" }, "PERF_TWEAKS must be on or off"],
      ["Resend secret without whsec_", { RESEND_WEBHOOK_SECRET: "c2VjcmV0" }, "RESEND_WEBHOOK_SECRET must be"],
      ["Resend secret not base64", { RESEND_WEBHOOK_SECRET: "whsec_not base64!" }, "RESEND_WEBHOOK_SECRET must be"],
      ["Resend secret too short", { RESEND_WEBHOOK_SECRET: "whsec_c2hvcnQ=" }, "RESEND_WEBHOOK_SECRET must be"],
      ["Postmark without a colon", { POSTMARK_WEBHOOK_AUTH: "justapassword" }, "POSTMARK_WEBHOOK_AUTH must be user:"],
      ["Postmark without password", { POSTMARK_WEBHOOK_AUTH: "user:" }, "POSTMARK_WEBHOOK_AUTH must be user:"],
      ["Postmark blank password", { POSTMARK_WEBHOOK_AUTH: "user:   " }, "POSTMARK_WEBHOOK_AUTH must be user:"],
      ["Brevo without a colon", { BREVO_WEBHOOK_AUTH: "brevo" }, "BREVO_WEBHOOK_AUTH must be user:password"],
      ["Mailgun key with a space", { MAILGUN_WEBHOOK_SIGNING_KEY: "key with spaces" }, "MAILGUN_WEBHOOK_SIGNING_KEY"],
      ["SES not an ARN", { SES_WEBHOOK_TOPIC_ARN: "ses-bounces" }, "SES_WEBHOOK_TOPIC_ARN must be the SNS topic's ARN"],
      ["Bluesky not a handle", { LATEST_POST_BLUESKY: "alex at bsky" }, "LATEST_POST_BLUESKY must be a Bluesky handle"],
      [
        "Mastodon not a profile",
        { LATEST_POST_MASTODON: "alex" },
        "LATEST_POST_MASTODON must be a Mastodon profile URL",
      ],
      ["AppView not a URL", { BLUESKY_API_URL: "appview" }, "BLUESKY_API_URL must be an http(s) URL"],
      ["Postmark stream with a space", { POSTMARK_MESSAGE_STREAM: "my stream" }, "POSTMARK_MESSAGE_STREAM must be"],
      [
        "SES another service's ARN",
        { SES_WEBHOOK_TOPIC_ARN: "arn:aws:sqs:eu-west-1:123456789012:bounces" },
        "SES_WEBHOOK_TOPIC_ARN must be",
      ],
    ])("%s", (_label, extra, expected) => {
      const lines = problems(production(extra));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Invalid environment: [A-Z_]+ /);
      expect(lines[0]).toContain(expected);
    });

    it("one line per bad variable when several are bad", () => {
      const lines = problems(production({ PORT: "x", ALLOW_INDEXING: "x" }));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain("PORT");
      expect(lines[1]).toContain("ALLOW_INDEXING");
    });

    it("never prints the value, which may be a secret", () => {
      const lines = problems(production({ SESSION_SECRET: "hunter2-is-my-secret" }));
      expect(lines.join("\n")).not.toContain("hunter2");
      const webhook = problems(production({ POSTMARK_WEBHOOK_AUTH: "hunter2isnotcredentials" }));
      expect(webhook.join("\n")).not.toContain("hunter2");
    });
  });
});

describe(".env.example", () => {
  const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
  const documented = [...example.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]);

  it("documents every variable the server reads, and no other", () => {
    expect([...documented].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it("holds no secret", () => {
    expect(example).toMatch(/^SESSION_SECRET=$/m);
    expect(example).toMatch(/^SUPABASE_ANON_KEY=$/m);
  });
});
