import { describe, expect, it } from "vitest";
import { startServerExpectingFailure } from "../support/production-server";

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
  ])("%s: exits non-zero with one line naming the variable, and no stack", async (_label, bad, line) => {
    const { exit, output } = await startServerExpectingFailure({ env: bad });
    expect(exit.code).not.toBe(0);
    expect(output("stdout")).not.toContain("listening");
    const stderr = output("stderr");
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
    expect(stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
});
