/** The update command (`npm run newsletter`, scripts/newsletter.mjs) as the owner runs it, and what it works on. */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { openOutbox, type OutboxRow } from "~/mail/outbox.server";
import { OUTBOX_FILE_NAME } from "~/mail/settings.server";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { openSqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { childEnv, productionEnv, ROOT } from "../production-server";
import type { Run } from "../subscribers-cli";
import { withoutMail } from "./without-mail";

export const FROM = "Alex Placeholder <updates@mail.example.net>";

/** The command's environment: a data folder, an updates folder, the relay (or capture) and the pace. */
export const sendEnv = (dataDir: string, updatesDir: string, smtpUrl: string, extra: Record<string, string> = {}) =>
  childEnv(
    productionEnv({
      DATA_DIR: dataDir,
      UPDATES_DIR: updatesDir,
      SMTP_URL: smtpUrl,
      MAIL_FROM: FROM,
      MAIL_RATE_PER_SECOND: "0",
      ...extra,
    }),
  );

const SCRIPT = path.join(ROOT, "scripts/newsletter.mjs");

/**
 * A real send refuses an update no running site serves (send-checks.server.ts); these tests have no site running,
 * so their sends say `--not-served-ok` unless the test passes `{ servedCheck: true }` (the refusal's own tests).
 */
const commandArgs = (args: string[], servedCheck = false) =>
  !servedCheck && args[0] === "send" && !args.includes("--test") && !args.includes("--dry-run")
    ? [...args, "--not-served-ok"]
    : args;

/** Runs the command to its end (at most `timeoutMs`); never throws on a non-zero exit. */
export async function newsletter(
  env: NodeJS.ProcessEnv,
  args: string[],
  timeoutMs = 120_000,
  { servedCheck = false } = {},
): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [SCRIPT, ...commandArgs(args, servedCheck)],
      {
        cwd: ROOT,
        env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Starts the command without waiting (to kill it, or to start a second one beside it). */
export function startNewsletter(env: NodeJS.ProcessEnv, args: string[]): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [SCRIPT, ...commandArgs(args)], { cwd: ROOT, env, stdio: "pipe" });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
  });

/** Puts these readers on the embedded list (as sign-ups before confirmation existed: confirmed readers). */
export async function addReaders(dataDir: string, emails: string[]) {
  const store = openSqliteList(dataDir);
  try {
    for (const email of emails) {
      const outcome = (await store.signUp(email, withoutMail())).outcome;
      if (outcome !== "subscribed") throw new Error(`${email} could not be added: ${outcome}`);
    }
    return store.owner.rows();
  } finally {
    store.close();
  }
}

/**
 * Signs these addresses up on the embedded list with confirmation on, as the dialog does (each mailed a token): the
 * `confirmed` ones then pressed 'Confirm', the `pending` ones did not (an hour ago, well inside their 7 days).
 */
export async function signUpWithConfirmation(dataDir: string, readers: { confirmed: string[]; pending: string[] }) {
  const store = openSqliteList(dataDir);
  try {
    const at = Date.now() - 60 * 60_000;
    for (const email of [...readers.confirmed, ...readers.pending]) {
      const signedUp = await store.signUp(email, { state: "pending", consent: dialogConsent("/"), now: at });
      if (signedUp.outcome !== "subscribed") {
        throw new Error(`${email} could not sign up`);
      }
      if ((await store.issueConfirmToken(email, hashToken(`token-of-${email}`), at + 1_000)) !== "issued") {
        throw new Error(`${email} got no token`);
      }
    }
    for (const email of readers.confirmed) {
      if ((await store.confirm(`token-of-${email}`, at + 60_000)) !== "confirmed") {
        throw new Error(`${email} could not confirm`);
      }
    }
  } finally {
    store.close();
  }
}

/** Writes an update file into `dir`; front matter as given. */
export function writeUpdate(dir: string, name: string, front: Record<string, unknown>, body = "Hello **readers**.") {
  mkdirSync(dir, { recursive: true });
  const lines = Object.entries(front).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  writeFileSync(path.join(dir, `${name}.md`), `---\n${lines.join("\n")}\n---\n\n${body}\n`);
}

/** The outbox's rows, read from its file as the command left it. */
export function outboxRows(dataDir: string, ref?: string): OutboxRow[] {
  const outbox = openOutbox(path.join(dataDir, OUTBOX_FILE_NAME));
  try {
    return outbox.rows({ kind: "update", ...(ref ? { ref } : {}) });
  } finally {
    outbox.close();
  }
}

/** How many mails each address received. */
export function perRecipient(mails: { envelopeTo: string[] }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of mails) for (const to of mail.envelopeTo) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}
