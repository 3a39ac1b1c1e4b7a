import { randomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";

// An empty value (e.g. `docker run -e SUPABASE_URL=`) means "not set", not "set to nothing".
const optional = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), schema);

/** Whether a URL points at this machine: localhost, 127.0.0.0/8 or ::1 (a local Supabase, a test's stub). */
function isLoopbackUrl(url: string): boolean {
  // Called after the URL check even when it failed (zod runs every refinement): a bad URL is not loopback.
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const integer = (min: number, max: number, fallback: number) =>
  optional(
    z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
      .default(String(fallback)),
  );

const flag = (fallback: boolean) =>
  optional(
    z
      .enum(["true", "false", "1", "0", "yes", "no"], {
        errorMap: () => ({ message: "must be true or false" }),
      })
      .transform((value) => value === "true" || value === "1" || value === "yes")
      .default(fallback ? "true" : "false"),
  );

/** Never echoed in a message: the URL carries the relay's password. */
function isMailUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "file:") return url.pathname.length > 1 && !url.host;
  return (url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "";
}

// One address, with or without a display name; no line breaks (a header), nothing before the name but the name.
const MAIL_FROM_SHAPE = /^(?:[^<>\r\n@]*<[^<>\s@]+@[^<>\s@]+\.[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+\.[^<>\s@]+)$/;
const isMailFrom = (value: string) => MAIL_FROM_SHAPE.test(value.trim());

const envSchema = z
  .object({
    NODE_ENV: optional(
      z
        .enum(["production", "development", "test"], {
          errorMap: () => ({ message: "must be production, development or test" }),
        })
        .default("development"),
    ),
    PORT: integer(1, 65535, 3000),
    HOST: optional(z.string().default("0.0.0.0")),
    SESSION_SECRET: optional(z.string().min(32, "must be at least 32 characters").optional()),
    SUPABASE_URL: optional(
      z
        .string()
        .url("must be a URL such as https://<project>.supabase.co")
        .refine((url) => /^https?:\/\//.test(url), "must start with https:// or http://")
        // Plain HTTP crosses the network readable, and a proxy's redirect to HTTPS turned inserts into GETs.
        .refine(
          (url) => !url.startsWith("http://") || isLoopbackUrl(url),
          "must start with https:// (http:// only for a loopback address such as http://127.0.0.1:54321)",
        )
        .optional(),
    ),
    SUPABASE_ANON_KEY: optional(z.string().optional()),
    // Reads every address: given to `npm run newsletter` alone, never to the web server (build-entry's onStart).
    SUPABASE_SERVICE_ROLE_KEY: optional(z.string().optional()),
    // Signs the confirmation tokens the server gives Supabase (double opt-in there; app/newsletter/confirm-supabase).
    SUPABASE_CONFIRM_SECRET: optional(z.string().min(32, "must be at least 32 characters").optional()),
    DATA_DIR: optional(z.string().default("./data")),
    // Unset: DATA_DIR/backups, resolved once DATA_DIR is known (see backupDirectory).
    BACKUP_DIR: optional(z.string().optional()),
    BACKUP_KEEP: integer(1, 1_000, 7),
    TRUST_PROXY: flag(false),
    SUBSCRIBE_RATE_LIMIT_PER_MINUTE: integer(0, 100_000, 5),
    LATEST_POST_TIMEOUT_MS: integer(1, 60_000, 1500),
    LATEST_POST_HARD_LIMIT_MS: integer(1, 120_000, 10_000),
    LATEST_POST_TTL_SECONDS: integer(0, 86_400, 300),
    LATEST_POST_FAILURE_TTL_SECONDS: integer(0, 86_400, 30),
    // The latest post without Supabase (docs/latest-post.md): its own check reads them (app/latest-post/settings).
    LATEST_POST_BLUESKY: optional(z.string().optional()),
    LATEST_POST_MASTODON: optional(z.string().optional()),
    // Unset: the public AppView.
    BLUESKY_API_URL: optional(z.string().optional()),
    ALLOW_INDEXING: flag(true),
    // One switch for everything in app/perf/ (its README): "off" for a comparison run.
    PERF_TWEAKS: optional(z.enum(["on", "off"], { errorMap: () => ({ message: "must be on or off" }) }).default("on")),
    // The owner's update files (app/updates/updates.server.ts); tests point it at their own folders.
    UPDATES_DIR: optional(z.string().default("app/content/updates")),
    // The owner's optional welcome mail (app/newsletter/welcome/): absent, no welcome is sent.
    WELCOME_FILE: optional(z.string().default("app/content/welcome.md")),
    // The mail path (app/mail/settings.server.ts): smtp:// or smtps:// for a relay, file:///folder to capture .eml files.
    SMTP_URL: optional(
      z
        .string()
        .refine(isMailUrl, "must be smtp://user:password@host:port, smtps://… or file:///absolute/folder")
        .optional(),
    ),
    MAIL_FROM: optional(
      z
        .string()
        .refine(isMailFrom, "must be an address such as `Name <updates@example.com>` or updates@example.com")
        .optional(),
    ),
    MAIL_MAX_PER_HOUR: integer(1, 1_000_000, 100),
    // Confirmation mails one visitor (client address) may cause per hour (0: no such limit); behind a proxy, only with
    // TRUST_PROXY does each visitor count apart (app/newsletter/sign-up/confirmation-limits.ts).
    CONFIRM_MAILS_PER_VISITOR: integer(0, 1_000_000, 10),
    // The site's address for absolute links in place of owner.siteUrl (app/utils/site-url.server.ts): a local
    // server's address (http://localhost:3000) makes captured mails link to it.
    SITE_URL: optional(
      z
        .string()
        .refine(
          (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
          "must be an http(s) address such as https://example.com or http://localhost:3000",
        )
        .optional(),
    ),
    // 0: no pacing (benchmarks, a relay without limits).
    MAIL_RATE_PER_SECOND: integer(0, 100_000, 2),
    // How often the server looks for an update's send the command left; tests shorten it to see it within a second.
    MAIL_RESUME_CHECK_SECONDS: integer(1, 3_600, 15),
    // A mail the relay could not take goes again this many seconds later, then twice as long each time; tests shorten it.
    MAIL_FIRST_RETRY_SECONDS: integer(1, 300, 10),
    // After its first round, `npm run newsletter -- send` stays for a retry due within this many seconds; tests shorten it.
    MAIL_RETRY_HOLD_SECONDS: integer(0, 3_600, 15),
    // The relays' bounce and complaint webhooks (docs/newsletter.md): each unset one's endpoint answers 404; their
    // shapes are the webhooks' own check (app/newsletter/webhooks/settings.server.ts).
    RESEND_WEBHOOK_SECRET: optional(z.string().optional()),
    POSTMARK_WEBHOOK_AUTH: optional(z.string().optional()),
    MAILGUN_WEBHOOK_SIGNING_KEY: optional(z.string().optional()),
    BREVO_WEBHOOK_AUTH: optional(z.string().optional()),
    SES_WEBHOOK_TOPIC_ARN: optional(z.string().optional()),
    // Postmark over SMTP: the Broadcast stream updates go through (its X-PM-Message-Stream header); unset, the server's
    // default transactional stream.
    POSTMARK_MESSAGE_STREAM: optional(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, "must be a Postmark message stream's ID, such as broadcast")
        .optional(),
    ),
    // Replies to updates (and only updates) go there: the owner's own inbox, when MAIL_FROM is a no-reply.
    MAIL_REPLY_TO: optional(
      z.string().refine(isMailFrom, "must be an address such as `Name <me@example.com>` or me@example.com").optional(),
    ),
    // Optional DKIM signing of every mail (app/mail/dkim.server.ts checks the key at start).
    DKIM_DOMAIN: optional(
      z
        .string()
        .regex(
          /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
          "must be a domain such as example.com",
        )
        .optional(),
    ),
    DKIM_SELECTOR: optional(
      z
        .string()
        .regex(/^[a-z0-9](?:[a-z0-9._-]{0,62})$/i, "must be a DNS label such as mail2026")
        .optional(),
    ),
    DKIM_PRIVATE_KEY: optional(z.string().optional()),
    DKIM_PRIVATE_KEY_FILE: optional(z.string().optional()),
    // For tests and special setups: the DNS server `npm run newsletter -- check` asks (host:port), not the system's.
    DNS_RESOLVER: optional(
      z
        .string()
        .regex(
          /^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\[[0-9a-f:.]+\](?::\d{1,5})?)$/i,
          "must be an IP address with an optional port, such as 127.0.0.1:5353 or [::1]:53",
        )
        .optional(),
    ),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && !env.SESSION_SECRET) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["SESSION_SECRET"],
        message: "is required in production (at least 32 characters, e.g. `openssl rand -hex 32`)",
      });
    }
    if (env.SMTP_URL && !env.SMTP_URL.startsWith("file:") && !env.MAIL_FROM) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["MAIL_FROM"],
        message: "is required when SMTP_URL names a relay (e.g. `Name <updates@example.com>`)",
      });
    }
    if (Boolean(env.SUPABASE_URL) !== Boolean(env.SUPABASE_ANON_KEY)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [env.SUPABASE_URL ? "SUPABASE_ANON_KEY" : "SUPABASE_URL"],
        message: "must be set together with the other (SUPABASE_URL and SUPABASE_ANON_KEY: both or neither)",
      });
    }
  });

/** Every variable the server reads (and `.env.example` documents). */
export const ENV_VARIABLES = Object.keys(envSchema.innerType().shape);

/** Every name the start-up's lookalike warning knows (app/utils/env-spelling.server.ts): each one we read is in the schema. */
export const KNOWN_ENV_VARIABLES: readonly string[] = ENV_VARIABLES;

export type Env = z.output<typeof envSchema> & { SESSION_SECRET: string };

/** The parsed settings a feature's own check reads (before a development secret is drawn). */
export type ParsedEnv = z.output<typeof envSchema>;

/** One bad variable a feature's check found: named, with what it must be (never its value). */
export interface SettingProblem {
  variable: string;
  message: string;
}

/**
 * A feature's own rule over its variables (a key that must load, a secret's shape): the schema here parses types and
 * formats only, and the composition root (app/server-build/settings.server.ts) hands in each feature's check.
 */
export type SettingsCheck = (env: ParsedEnv) => readonly SettingProblem[];

export class EnvError extends Error {
  override name = "EnvError";
}

/** One line per bad variable, naming it; never the value itself: it may be a secret, and the line ends up in logs. */
export function settingsError(found: readonly SettingProblem[]): EnvError {
  const problems = new Map<string, string[]>();
  for (const { variable, message } of found) problems.set(variable, [...(problems.get(variable) ?? []), message]);
  const lines = [...problems].map(([name, messages]) => `Invalid environment: ${name} ${messages.join("; ")}`);
  return new EnvError(lines.join("\n"));
}

/**
 * Parses an environment, then runs `checks` over it; throws an EnvError whose message has one line per bad variable,
 * naming it.
 */
export function parseEnv(source: Record<string, string | undefined>, checks: readonly SettingsCheck[] = []): Env {
  const schema =
    checks.length === 0
      ? envSchema
      : envSchema.superRefine((parsed, ctx) => {
          for (const check of checks) {
            for (const { variable, message } of check(parsed)) {
              ctx.addIssue({ code: z.ZodIssueCode.custom, path: [variable], message });
            }
          }
        });
  const result = schema.safeParse(source);
  if (!result.success) {
    throw settingsError(
      result.error.issues.map((issue) => ({ variable: issue.path.join("."), message: issue.message })),
    );
  }
  const parsed = result.data;
  let sessionSecret = parsed.SESSION_SECRET;
  if (!sessionSecret) {
    // Development only (production refuses to start without one): toasts survive until the process restarts.
    sessionSecret = randomBytes(32).toString("hex");
    if (parsed.NODE_ENV !== "test") {
      console.warn("SESSION_SECRET is not set: using a random secret for this process (fine for development only).");
    }
  }
  return { ...parsed, SESSION_SECRET: sessionSecret };
}

export const env: Env = parseEnv(process.env);

/** Where the embedded store's automatic backups go: BACKUP_DIR, or a folder `backups` in DATA_DIR. */
export const backupDirectory = (settings: Pick<Env, "BACKUP_DIR" | "DATA_DIR"> = env): string =>
  path.resolve(settings.BACKUP_DIR ?? path.join(settings.DATA_DIR, "backups"));
