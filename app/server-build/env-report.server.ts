/**
 * What the server says about its settings at start (server/index.mjs), and the owner's commands too
 * (scripts/load-build.mjs): one line on mail, a warning for each variable that looks like ours but is not, and one for
 * a DKIM key file open to every user.
 */
import { dkimKeyFileWarning } from "~/mail/dkim.server";
import { mailModeOf } from "~/mail/settings.server";
import { type Env, env, EnvError, KNOWN_ENV_VARIABLES } from "~/utils/env.server";
import { lookalikeVariables, lookalikeWarning, mailLookalikeError, mailLookalikes } from "~/utils/env-spelling.server";

/** A warning per lookalike variable in `source` (names only: values can be secrets). */
export function lookalikeWarnings(source: Record<string, string | undefined> = process.env): string[] {
  return lookalikeVariables(Object.keys(source), KNOWN_ENV_VARIABLES).map(lookalikeWarning);
}

/** Every warning about the settings: lookalike variables, and a DKIM key file every user of the machine can read. */
export function settingsWarnings(source: Record<string, string | undefined> = process.env): string[] {
  const keyFile = dkimKeyFileWarning(env);
  return [...lookalikeWarnings(source), ...(keyFile ? [keyFile] : [])];
}

/**
 * The production server's start: a misspelt mail setting stops it, as a bad value does (a warning scrolls away while
 * sign-ups wait for a confirmation mail that never leaves). Development keeps the warning alone.
 */
export function refuseMailLookalikes(
  source: Record<string, string | undefined> = process.env,
  nodeEnv: Env["NODE_ENV"] = env.NODE_ENV,
): void {
  if (nodeEnv !== "production") return;
  const found = mailLookalikes(lookalikeVariables(Object.keys(source), KNOWN_ENV_VARIABLES));
  if (found.length > 0) throw new EnvError(found.map(mailLookalikeError).join("\n"));
}

type MailLineEnv = Pick<
  Env,
  | "NODE_ENV"
  | "SMTP_URL"
  | "MAIL_FROM"
  | "MAIL_MAX_PER_HOUR"
  | "MAIL_RATE_PER_SECOND"
  | "DATA_DIR"
  | "SUPABASE_URL"
  | "SUPABASE_CONFIRM_SECRET"
>;

/** Nodemailer's ports when the URL names none. */
const DEFAULT_PORT = { "smtp:": "587", "smtps:": "465" } as Record<string, string>;

/**
 * One line: mail on (the relay's host and port, never its user or password), captured, or off, and what that means
 * for a sign-up. The same rule as the sign-up's (app/newsletter/confirm.server.ts): with Supabase, confirmation
 * also needs SUPABASE_CONFIRM_SECRET.
 */
export function mailStartupLine(settings: MailLineEnv = env): string {
  const mode = mailModeOf(settings);
  if (mode.kind === "off") {
    return "Mail: off (SMTP_URL is not set): sign-ups are confirmed at once, with no confirmation mail, and updates cannot be sent.";
  }
  const where =
    mode.kind === "capture"
      ? `captured, not sent: each mail is written as an .eml file into ${mode.folder}`
      : relayOf(mode.url);
  const confirmed =
    settings.SUPABASE_URL && !settings.SUPABASE_CONFIRM_SECRET
      ? "SUPABASE_CONFIRM_SECRET is not set, so sign-ups into Supabase are confirmed at once, with no confirmation mail"
      : "sign-ups get a confirmation mail and join the list once confirmed";
  return `Mail: ${where}; ${confirmed}.`;
}

function relayOf(mailUrl: string): string {
  const url = new URL(mailUrl);
  const port = url.port || DEFAULT_PORT[url.protocol] || "?";
  return `on, relay ${url.hostname} port ${port}${url.protocol === "smtps:" ? " (TLS)" : ""}`;
}
