import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";
import { lookalikeWarnings, mailStartupLine } from "~/server-build/env-report.server";
import { siteUrlOf } from "~/utils/site-url.server";

const settings = (source: Record<string, string>) =>
  parseEnv({ NODE_ENV: "production", SESSION_SECRET: "s".repeat(32), ...source });
const FROM = "Alex <updates@example.com>";

describe("mailStartupLine", () => {
  it("mail off: says so, and that sign-ups are confirmed at once", () => {
    expect(mailStartupLine(settings({}))).toBe(
      "Mail: off (SMTP_URL is not set): sign-ups are confirmed at once, with no confirmation mail, and updates cannot be sent.",
    );
  });

  it("a relay: its host and port, never its user or password", () => {
    const line = mailStartupLine(
      settings({ SMTP_URL: "smtp://apikey:hunter2-secret@smtp.example.com:2525", MAIL_FROM: FROM }),
    );
    expect(line).toBe(
      "Mail: on, relay smtp.example.com port 2525; sign-ups get a confirmation mail and join the list once confirmed.",
    );
    expect(line).not.toContain("hunter2");
    expect(line).not.toContain("apikey");
  });

  it("a relay without a port: the port Nodemailer uses", () => {
    expect(mailStartupLine(settings({ SMTP_URL: "smtp://u:p@relay.example.com", MAIL_FROM: FROM }))).toContain(
      "relay relay.example.com port 587;",
    );
    expect(mailStartupLine(settings({ SMTP_URL: "smtps://u:p@relay.example.com", MAIL_FROM: FROM }))).toContain(
      "relay relay.example.com port 465 (TLS);",
    );
  });

  it("capture: the folder", () => {
    expect(mailStartupLine(settings({ SMTP_URL: "file:///tmp/mails" }))).toBe(
      "Mail: captured, not sent: each mail is written as an .eml file into /tmp/mails; sign-ups get a confirmation mail and join the list once confirmed.",
    );
  });

  it("Supabase without its confirm secret: sign-ups are confirmed at once", () => {
    const line = mailStartupLine(
      settings({
        SMTP_URL: "smtp://u:p@relay.example.com:587",
        MAIL_FROM: FROM,
        SUPABASE_URL: "https://abc.supabase.co",
        SUPABASE_ANON_KEY: "anon",
      }),
    );
    expect(line).toContain("SUPABASE_CONFIRM_SECRET is not set, so sign-ups into Supabase are confirmed at once");
  });
});

describe("lookalikeWarnings", () => {
  it("one line per lookalike, never its value", () => {
    const lines = lookalikeWarnings({ SMTP_ULR: "smtp://u:secret-value@h", PATH: "/bin", MAIL_FROM: FROM });
    expect(lines).toEqual(["SMTP_ULR is not a variable we read; did you mean SMTP_URL?"]);
  });
});

describe("siteUrlOf", () => {
  it("SITE_URL when set, the owner's address otherwise", () => {
    expect(siteUrlOf({ SITE_URL: "http://localhost:3000" }, "https://owner.example")).toBe("http://localhost:3000");
    expect(siteUrlOf({}, "https://owner.example")).toBe("https://owner.example");
  });

  it("SITE_URL must be an http(s) address", () => {
    expect(() => settings({ SITE_URL: "localhost:3000" })).toThrow("SITE_URL must be an http(s) address");
    expect(settings({ SITE_URL: "http://localhost:3000" }).SITE_URL).toBe("http://localhost:3000");
  });
});
