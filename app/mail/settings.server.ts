/**
 * How this process sends mail, decided once from the environment (app/utils/env.server.ts validated it).
 *
 * - `SMTP_URL=smtp://…` or `smtps://…`: a relay, through Nodemailer (`MAIL_FROM` required).
 * - `SMTP_URL=file:///absolute/folder`: capture, each mail written as an `.eml` file into that folder.
 * - unset, in development: capture into `$DATA_DIR/mail`, so `npm run dev` shows the real mail with no account.
 * - unset otherwise: mail is off, and the sign-up works as it did before mail existed (no confirmation).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { owner } from "~/content/site";
import type { Env } from "~/utils/env.server";

export type MailMode = { kind: "off" } | { kind: "smtp"; url: string } | { kind: "capture"; folder: string };

export interface MailSettings {
  mode: MailMode;
  /** The From header: MAIL_FROM, or in capture mode without it the owner's name at a placeholder address. */
  from: string;
  /** Confirmation mails per rolling hour, all readers together (past it they wait in the outbox). */
  maxPerHour: number;
  /** Update mails per second; 0 means unpaced. */
  ratePerSecond: number;
  /** The outbox's SQLite file: under DATA_DIR whichever store holds the list. */
  outboxFile: string;
}

export const OUTBOX_FILE_NAME = "mail-outbox.sqlite";

type MailEnv = Pick<
  Env,
  "NODE_ENV" | "SMTP_URL" | "MAIL_FROM" | "MAIL_MAX_PER_HOUR" | "MAIL_RATE_PER_SECOND" | "DATA_DIR"
>;

export function mailModeOf(settings: MailEnv): MailMode {
  const url = settings.SMTP_URL;
  if (url?.startsWith("file:")) return { kind: "capture", folder: fileURLToPath(url) };
  if (url) return { kind: "smtp", url };
  if (settings.NODE_ENV === "development") {
    return { kind: "capture", folder: path.resolve(settings.DATA_DIR, "mail") };
  }
  return { kind: "off" };
}

export function mailSettingsOf(settings: MailEnv): MailSettings {
  return {
    mode: mailModeOf(settings),
    from: settings.MAIL_FROM?.trim() ?? `${owner.name} <updates@example.com>`,
    maxPerHour: settings.MAIL_MAX_PER_HOUR,
    ratePerSecond: settings.MAIL_RATE_PER_SECOND,
    outboxFile: path.resolve(settings.DATA_DIR, OUTBOX_FILE_NAME),
  };
}

/** A mail URL fit for a log line: scheme, host and port, never the user or the password. */
export function describeMode(mode: MailMode): string {
  if (mode.kind === "off") return "off";
  if (mode.kind === "capture") return `capture into ${mode.folder}`;
  const url = new URL(mode.url);
  return `${url.protocol}//${url.host}`;
}
