/**
 * SpamAssassin's verdict on every kind of mail as it leaves the product (issues 41 and 44: "SpamAssassin 0.0, local
 * tests"): an update with a heading, a quote, a list and a link, its test copy, the server's confirmation and the
 * owner's welcome, each captured by a real SMTP server on loopback and scored by Debian's `spamassassin` with its local
 * rules only (no network, no Bayes database: what a receiver's rules see in the mail itself). `.ci/run` installs it
 * when missing.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { confirmTokenIn, pressConfirm } from "../../support/confirm-link";
import { subscribe } from "../../support/newsletter/http";
import { addReaders, FROM, newsletter } from "../../support/newsletter/cli";
import { sendSetupPerTest } from "../../support/newsletter/send-setup";
import { ROOT, serverHarness } from "../../support/production-server";
import { type ReceivedMail, startSmtpServer } from "../../support/smtp-server";

const NAME = "2026-11-20-first-launch";
const BODY = [
  "The first app is **out**, after five weeks of evenings.",
  "",
  "## What it does",
  "",
  "> Track every subscription you pay for, and see what a year of them costs.",
  "",
  "- a list of what you pay, and when",
  "- a reminder before each renewal",
  "",
  "Try it at https://subtrackr.example.com and tell me what breaks.",
].join("\n");
const setup = sendSetupPerTest("spam-score-", { name: NAME, front: { title: "First launch" }, body: BODY });
const harness = serverHarness("spam-score-server-");
afterAll(() => harness.cleanup());

/** The score and the rules that fired, from SpamAssassin's report header in test mode. */
async function spamScore(mail: ReceivedMail): Promise<{ score: number; rules: string }> {
  const child = spawn("spamassassin", ["--local", "--test-mode", "--cf", "use_bayes 0", "--cf", "bayes_auto_learn 0"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin.end(mail.raw);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", (error) =>
      reject(new Error(`spamassassin did not start (${error.message}): apt-get install spamassassin`)),
    );
    child.on("close", resolve);
  });
  clearTimeout(timer);
  const report = Buffer.concat(out).toString("utf8");
  const status = /^X-Spam-Status: (?:Yes|No), score=(-?[\d.]+)[^\n]*(?:\n\s+[^\n]*)*/m.exec(report);
  if (!status) throw new Error(`no X-Spam-Status from spamassassin (exit ${code}): ${Buffer.concat(err).toString()}`);
  return { score: Number(status[1]), rules: status[0].replace(/\s+/g, " ") };
}

describe("SpamAssassin, local rules", () => {
  it("scores an update 0 or below", async () => {
    await addReaders(setup.dataDir, ["reader@example.org"]);
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).toBe(0);
    const [mail] = await setup.relay.waitForMails(1);
    const verdict = await spamScore(mail!);
    expect(verdict.score, verdict.rules).toBeLessThanOrEqual(0);
  }, 90_000);

  it("scores the owner's test copy 0 or below", async () => {
    const run = await newsletter(setup.env(), ["send", NAME, "--test", "owner@example.org"]);
    expect(run.code).toBe(0);
    const [mail] = await setup.relay.waitForMails(1);
    const verdict = await spamScore(mail!);
    expect(verdict.score, verdict.rules).toBeLessThanOrEqual(0);
  }, 90_000);

  it("scores the server's confirmation and the welcome that follows it 0 or below", async () => {
    const relay = await startSmtpServer();
    try {
      const server = await harness.start({
        SMTP_URL: relay.url(),
        MAIL_FROM: FROM,
        DATA_DIR: harness.scratchDir(),
        WELCOME_FILE: path.join(ROOT, "tests/fixtures/welcome/welcome.md"),
      });
      await subscribe(server.url, "new@example.org");
      const [confirmation] = await relay.waitForMails(1, 10_000);
      const verdict = await spamScore(confirmation!);
      expect(verdict.score, verdict.rules).toBeLessThanOrEqual(0);

      expect((await pressConfirm(server.url, confirmTokenIn(confirmation!.parsed.text ?? "")!)).status).toBe(200);
      const [, welcome] = await relay.waitForMails(2, 10_000);
      expect(welcome!.parsed.subject).toMatch(/^Welcome/);
      const welcomeVerdict = await spamScore(welcome!);
      expect(welcomeVerdict.score, welcomeVerdict.rules).toBeLessThanOrEqual(0);
    } finally {
      await relay.close();
    }
  }, 90_000);

  it("the probe works: a mail written like spam scores above 5", async () => {
    const raw = [
      "From: WINNER <winner@example.com>",
      "To: you@example.org",
      "Subject: FREE MONEY!!! CLICK NOW $$$ 100% GUARANTEED",
      "Content-Type: text/html",
      "",
      "<html><body><font size=7 color=red>CLICK HERE TO CLAIM YOUR FREE MONEY!!! VIAGRA CASINO LOTTERY WINNER",
      "100% GUARANTEED no risk, act now, limited time, cash bonus</font></body></html>",
      "",
    ].join("\r\n");
    const verdict = await spamScore({ raw } as ReceivedMail);
    expect(verdict.score, verdict.rules).toBeGreaterThan(5);
  }, 90_000);
});
