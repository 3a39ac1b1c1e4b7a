/**
 * Closing the terminal does not lose a send: the command stops cleanly on SIGHUP and the web server, which drains the
 * same outbox, goes on where it stopped, each reader getting one mail. Ctrl-C (SIGINT) is the owner's stop: the
 * server leaves that update alone until the command runs again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import {
  addReaders,
  exited,
  FROM,
  newsletter,
  perRecipient,
  sendEnv,
  startNewsletter,
  writeUpdate,
} from "../support/newsletter-cli";

const NAME = "2026-11-20-first-launch";
let dir: string;
let dataDir: string;
let updatesDir: string;
let relay: TestSmtpServer;
let server: ServerProcess | undefined;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "newsletter-server-"));
  dataDir = path.join(dir, "data");
  updatesDir = path.join(dir, "updates");
  writeUpdate(updatesDir, NAME, { title: "First launch" });
  relay = await startSmtpServer();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

const readers = (count: number) => Array.from({ length: count }, (_, n) => `reader${n}@example.org`);

async function startWithMail() {
  server = await startServer({
    env: {
      DATA_DIR: dataDir,
      UPDATES_DIR: updatesDir,
      SMTP_URL: relay.url(),
      MAIL_FROM: FROM,
      MAIL_RATE_PER_SECOND: "10",
    },
  });
  return server;
}

describe("a send the command leaves", () => {
  it("the terminal closes (SIGHUP): the web server goes on, and every reader gets one mail", async () => {
    await addReaders(dataDir, readers(30));
    await startWithMail();
    const env = sendEnv(dataDir, updatesDir, relay.url(), { MAIL_RATE_PER_SECOND: "10" });
    const sender = startNewsletter(env, ["send", NAME]);
    await relay.waitForMails(3, 20_000);
    sender.kill("SIGHUP");
    expect(await exited(sender)).toBe(130);
    expect(sender.output()).toContain("The terminal closed: the web server goes on");
    const left = relay.mails.length;
    expect(left).toBeLessThan(30);
    // The server looks every 15 s.
    await relay.waitForMails(30, 40_000);
    await server!.waitForOutput(`the update ${NAME} is sent`, 10_000);
    expect([...perRecipient(relay.mails).values()]).toEqual(Array(30).fill(1));
    const status = await newsletter(env, ["status"]);
    expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsent to 30 of 30, finished `, "m"));
  }, 90_000);

  it("the owner stops it (Ctrl-C): it stays paused until the command runs again", async () => {
    await addReaders(dataDir, readers(30));
    await startWithMail();
    const env = sendEnv(dataDir, updatesDir, relay.url(), { MAIL_RATE_PER_SECOND: "10" });
    const sender = startNewsletter(env, ["send", NAME]);
    await relay.waitForMails(3, 20_000);
    sender.kill("SIGINT");
    expect(await exited(sender)).toBe(130);
    expect(sender.output()).toContain("Paused: the mails not sent yet stay queued.");
    const atStop = relay.mails.length;
    const status = await newsletter(env, ["status"]);
    expect(status.stdout).toContain("(paused: run send again)");
    await new Promise((resolve) => setTimeout(resolve, 17_000));
    expect(relay.mails.length).toBe(atStop);
    const again = await newsletter(env, ["send", NAME]);
    expect(again.code).toBe(0);
    expect([...perRecipient(relay.mails).values()]).toEqual(Array(30).fill(1));
  }, 90_000);
});
