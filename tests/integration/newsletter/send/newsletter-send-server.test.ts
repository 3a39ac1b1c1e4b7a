/**
 * Closing the terminal does not lose a send: the command stops cleanly on SIGHUP and the web server, which drains the
 * same outbox, goes on where it stopped, each reader getting one mail. Ctrl-C (SIGINT) is the owner's stop: the
 * server leaves that update alone until the command runs again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../../../support/production-server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { addReaders, exited, FROM, newsletter, perRecipient, startNewsletter } from "../../../support/newsletter/cli";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("newsletter-server-", { name: NAME, front: { title: "First launch" } });
let server: ServerProcess | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const readers = (count: number) => Array.from({ length: count }, (_, n) => `reader${n}@example.org`);

async function startWithMail() {
  server = await startServer({
    env: {
      DATA_DIR: setup.dataDir,
      UPDATES_DIR: setup.updatesDir,
      SMTP_URL: setup.relay.url(),
      MAIL_FROM: FROM,
      MAIL_RATE_PER_SECOND: "10",
      // Every second rather than every 15 (the default, pinned in tests/unit/utils/env.test.ts).
      MAIL_RESUME_CHECK_SECONDS: "1",
    },
  });
  return server;
}

describe("a send the command leaves", () => {
  it("the terminal closes (SIGHUP): the web server goes on, and every reader gets one mail", async () => {
    await addReaders(setup.dataDir, readers(30));
    await startWithMail();
    const env = setup.env({ MAIL_RATE_PER_SECOND: "10" });
    const sender = startNewsletter(env, ["send", NAME]);
    await setup.relay.waitForMails(3, 20_000);
    sender.kill("SIGHUP");
    expect(await exited(sender)).toBe(130);
    expect(sender.output()).toContain("The terminal closed: the web server goes on");
    const left = setup.relay.mails.length;
    expect(left).toBeLessThan(30);
    await setup.relay.waitForMails(30, 40_000);
    await server!.waitForOutput(`the update ${NAME} is sent`, 10_000);
    expect([...perRecipient(setup.relay.mails).values()]).toEqual(Array(30).fill(1));
    const status = await newsletter(env, ["status"]);
    expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsent to 30 of 30, finished `, "m"));
  }, 90_000);

  it("the owner stops it (Ctrl-C): it stays paused until the command runs again", async () => {
    await addReaders(setup.dataDir, readers(30));
    await startWithMail();
    const env = setup.env({ MAIL_RATE_PER_SECOND: "10" });
    const sender = startNewsletter(env, ["send", NAME]);
    await setup.relay.waitForMails(3, 20_000);
    sender.kill("SIGINT");
    expect(await exited(sender)).toBe(130);
    expect(sender.output()).toContain("Paused: the mails not sent yet stay queued.");
    const atStop = setup.relay.mails.length;
    const status = await newsletter(env, ["status"]);
    expect(status.stdout).toContain("(paused: run send again)");
    // The server looked at the update's due mails and left them.
    await server!.waitForOutput(`the update ${NAME} is paused: the server leaves it`, 20_000);
    expect(setup.relay.mails.length).toBe(atStop);
    const again = await newsletter(env, ["send", NAME]);
    expect(again.code).toBe(0);
    expect([...perRecipient(setup.relay.mails).values()]).toEqual(Array(30).fill(1));
  }, 90_000);
});
