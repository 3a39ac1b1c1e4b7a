import { describe, expect, it } from "vitest";
import { KNOWN_ENV_VARIABLES } from "~/utils/env.server";
import { refuseMailLookalikes } from "~/server-build/env-report.server";
import {
  editDistance,
  lookalikeVariables,
  lookalikeWarning,
  mailLookalikeError,
  mailLookalikes,
} from "~/utils/env-spelling.server";

const meant = (names: string[]) =>
  Object.fromEntries(lookalikeVariables(names, KNOWN_ENV_VARIABLES).map(({ name, meant }) => [name, meant]));

describe("editDistance", () => {
  it.each([
    ["SMTP_URL", "SMTP_URL", 0],
    ["SMTP_ULR", "SMTP_URL", 1],
    ["SMTP_UR", "SMTP_URL", 1],
    ["SMPT_URLL", "SMTP_URL", 2],
    ["HOME", "HOST", 2],
    ["", "PORT", 4],
  ])("%s → %s: %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("lookalikeVariables", () => {
  it("names the variable a near spelling most likely means", () => {
    expect(
      meant([
        "SMTP_ULR",
        "SMTPURL",
        "MAIL_FORM",
        "SUPABASE_ANON_KY",
        "DATA_DIRR",
        "SESION_SECRET",
        "PROT",
        "smtp_url",
        "MAIL_MAX_PER_HOURS",
        "DKIM_SELECTR",
        "RESEND_WEBHOOK_SECRT",
      ]),
    ).toEqual({
      SMTP_ULR: "SMTP_URL",
      SMTPURL: "SMTP_URL",
      MAIL_FORM: "MAIL_FROM",
      SUPABASE_ANON_KY: "SUPABASE_ANON_KEY",
      DATA_DIRR: "DATA_DIR",
      SESION_SECRET: "SESSION_SECRET",
      PROT: "PORT",
      smtp_url: "SMTP_URL",
      MAIL_MAX_PER_HOURS: "MAIL_MAX_PER_HOUR",
      DKIM_SELECTR: "DKIM_SELECTOR",
      RESEND_WEBHOOK_SECRT: "RESEND_WEBHOOK_SECRET",
    });
  });

  it("an unknown name with one of our prefixes gets the nearest known name of that family", () => {
    expect(
      meant([
        "SMTP_PASSWORD",
        "MAIL_SENDER",
        "SUPABASE_KEY",
        "LATEST_POST_TIMEOUT",
        "BACKUP_DIRECTORY",
        "DKIM_KEY",
        "POSTMARK_TOKEN",
        "SES_TOPIC",
      ]),
    ).toEqual({
      SMTP_PASSWORD: "SMTP_URL",
      MAIL_SENDER: "MAIL_FROM",
      SUPABASE_KEY: "SUPABASE_URL",
      LATEST_POST_TIMEOUT: "LATEST_POST_TIMEOUT_MS",
      BACKUP_DIRECTORY: "BACKUP_DIR",
      DKIM_KEY: "DKIM_DOMAIN",
      POSTMARK_TOKEN: "POSTMARK_WEBHOOK_AUTH",
      SES_TOPIC: "SES_WEBHOOK_TOPIC_ARN",
    });
  });

  it("leaves known names and the usual system and tool variables alone", () => {
    const system = ["HOME", "PATH", "PWD", "USER", "SHELL", "TERM", "LANG", "HOSTNAME", "NODE_VERSION", "YARN_VERSION"];
    const tools = ["MAIL", "MAILPATH", "npm_config_cache", "npm_lifecycle_event", "REMIX_DEV_ORIGIN", "INIT_CWD"];
    expect(lookalikeVariables([...KNOWN_ENV_VARIABLES, ...system, ...tools], KNOWN_ENV_VARIABLES)).toEqual([]);
  });

  it("knows every variable the schema reads and those read elsewhere", () => {
    for (const name of ["SMTP_URL", "SITE_URL", "MAIL_REPLY_TO", "DNS_RESOLVER", "BREVO_WEBHOOK_AUTH"]) {
      expect(KNOWN_ENV_VARIABLES).toContain(name);
    }
  });
});

describe("lookalikeWarning", () => {
  it("says the name and the one we read, in one line", () => {
    expect(lookalikeWarning({ name: "SMTP_ULR", meant: "SMTP_URL" })).toBe(
      "SMTP_ULR is not a variable we read; did you mean SMTP_URL?",
    );
  });
});

describe("a misspelt mail setting", () => {
  const found = (names: string[]) => lookalikeVariables(names, KNOWN_ENV_VARIABLES);

  it("is told apart from other lookalikes: those that mean SMTP_, MAIL_ or DKIM_ settings", () => {
    expect(
      mailLookalikes(found(["SMTP_ULR", "MAIL_FORM", "DKIM_SELECTR", "SMTP_PASSWORD", "DATA_DIRR", "PROT"])).map(
        ({ name }) => name,
      ),
    ).toEqual(["SMTP_ULR", "MAIL_FORM", "DKIM_SELECTR", "SMTP_PASSWORD"]);
  });

  it("stops production with one line per variable naming both, as a bad value does", () => {
    expect(() => refuseMailLookalikes({ SMTP_ULR: "smtp://x", PROT: "1" }, "production")).toThrow(
      expect.objectContaining({
        name: "EnvError",
        message:
          "Invalid environment: SMTP_ULR is set, but the mail setting we read is SMTP_URL: rename it (or remove it).",
      }),
    );
    expect(mailLookalikeError({ name: "MAIL_FORM", meant: "MAIL_FROM" })).toBe(
      "Invalid environment: MAIL_FORM is set, but the mail setting we read is MAIL_FROM: rename it (or remove it).",
    );
  });

  it("development and tests keep the warning alone; production without one starts", () => {
    expect(() => refuseMailLookalikes({ SMTP_ULR: "smtp://x" }, "development")).not.toThrow();
    expect(() => refuseMailLookalikes({ SMTP_ULR: "smtp://x" }, "test")).not.toThrow();
    expect(() => refuseMailLookalikes({ SMTP_URL: "smtp://x", DATA_DIRR: "/srv" }, "production")).not.toThrow();
  });
});
