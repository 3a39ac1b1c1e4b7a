import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverHarness, startServerExpectingFailure } from "../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";
import { subscribers } from "../../support/subscribers-cli";

const PASSWORD = "relay-password-7f3a9c";
const TYPO_SECRET = "typo-secret-b81d2e";
const FROM = "Alex Placeholder <updates@example.com>";

describe("start-up with a bad environment", () => {
  it.each([
    ["PORT", { PORT: "eighty" }, "Invalid environment: PORT must be a whole number"],
    ["SESSION_SECRET unset", { SESSION_SECRET: "" }, "Invalid environment: SESSION_SECRET is required in production"],
    ["SESSION_SECRET short", { SESSION_SECRET: "short" }, "Invalid environment: SESSION_SECRET must be at least 32"],
    [
      "Supabase half-configured",
      { SUPABASE_URL: "https://abc.supabase.co" },
      "Invalid environment: SUPABASE_ANON_KEY must be set together with the other",
    ],
    ["ALLOW_INDEXING", { ALLOW_INDEXING: "sometimes" }, "Invalid environment: ALLOW_INDEXING must be true or false"],
    [
      "a webhook's credentials without a colon",
      { POSTMARK_WEBHOOK_AUTH: "justapassword" },
      "Invalid environment: POSTMARK_WEBHOOK_AUTH must be user:password",
    ],
    [
      "a Resend secret that is not whsec_",
      { RESEND_WEBHOOK_SECRET: "re_123456789" },
      "Invalid environment: RESEND_WEBHOOK_SECRET must be the webhook's signing secret",
    ],
    ["an SES topic that is no ARN", { SES_WEBHOOK_TOPIC_ARN: "bounces" }, "Invalid environment: SES_WEBHOOK_TOPIC_ARN"],
    [
      "a misspelt SMTP_URL",
      { SMTP_ULR: `smtp://owner:${TYPO_SECRET}@relay.example.com:587` },
      "Invalid environment: SMTP_ULR is set, but the mail setting we read is SMTP_URL: rename it (or remove it).",
    ],
    [
      "a misspelt mail limit beside good mail settings",
      { SMTP_URL: "smtp://127.0.0.1:2525", MAIL_FROM: FROM, MAIL_MAX_PER_HOURS: "50" },
      "Invalid environment: MAIL_MAX_PER_HOURS is set, but the mail setting we read is MAIL_MAX_PER_HOUR",
    ],
  ])("%s: exits non-zero with one line naming the variable, and no stack", async (_label, bad, line) => {
    const { exit, output } = await startServerExpectingFailure({ env: bad });
    expect(exit.code).not.toBe(0);
    expect(output("stdout")).not.toContain("listening");
    const stderr = output("stderr");
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
    expect(stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(stderr).not.toContain(TYPO_SECRET);
  });
});

describe("start-up: what the server says about mail and lookalike variables", () => {
  const servers = serverHarness("portfolio-env-startup-");
  let relay: TestSmtpServer;

  beforeAll(async () => {
    relay = await startSmtpServer();
  });
  afterAll(async () => {
    await servers.cleanup();
    await relay?.close();
  });

  const mailLines = (output: string) => output.split("\n").filter((line) => line.startsWith("Mail: "));

  it("mail off: one line saying so, and that sign-ups are confirmed at once", async () => {
    const server = await servers.start();
    expect(mailLines(server.output("stdout"))).toEqual([
      "Mail: off (SMTP_URL is not set): sign-ups are confirmed at once, with no confirmation mail, and updates cannot be sent.",
    ]);
  });

  it("a relay: its host and port, never the password; a misspelt setting (not mail's) is named with the one meant", async () => {
    const server = await servers.start({
      SMTP_URL: relay.url("owner", PASSWORD),
      MAIL_FROM: FROM,
      DATA_DIRR: `/srv/${TYPO_SECRET}`,
      SUPABASE_ANON_KY: TYPO_SECRET,
    });
    const stdout = server.output("stdout");
    // One line about mail, said once (the services start no second one).
    expect(mailLines(stdout)).toEqual([
      `Mail: on, relay 127.0.0.1 port ${relay.port}; sign-ups get a confirmation mail and join the list once confirmed.`,
    ]);
    const stderr = server.output("stderr");
    // Not a mail setting: production warns and starts.
    expect(stderr).toContain("DATA_DIRR is not a variable we read; did you mean DATA_DIR?");
    expect(stderr).toContain("SUPABASE_ANON_KY is not a variable we read; did you mean SUPABASE_ANON_KEY?");
    expect(server.output()).not.toContain(PASSWORD);
    expect(server.output()).not.toContain(TYPO_SECRET);
  });

  it("the owner's commands warn about the same variables, on stderr, and keep stdout clean", async () => {
    const run = await subscribers(servers.scratchDir(), ["count"], { MAIL_FORM: FROM, SMTP_ULR: TYPO_SECRET });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("0");
    expect(run.stderr).toContain("MAIL_FORM is not a variable we read; did you mean MAIL_FROM?");
    expect(run.stderr).toContain("SMTP_ULR is not a variable we read; did you mean SMTP_URL?");
    expect(run.stdout + run.stderr).not.toContain(TYPO_SECRET);
  });
});
