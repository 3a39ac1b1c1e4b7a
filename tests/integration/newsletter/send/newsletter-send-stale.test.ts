/**
 * A stale sender never finalises rows: the production server reads the updates once; an update added after
 * it started and left to it by the command (the terminal closed) is still sent to every reader, none skipped.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../../../support/production-server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import {
  addReaders,
  exited,
  FROM,
  outboxRows,
  perRecipient,
  startNewsletter,
  writeUpdate,
} from "../../../support/newsletter/cli";

const FIRST = "2026-11-20-first-launch";
const ADDED = "2026-11-21-added-later";
const setup = sendSetupPerTest("newsletter-stale-", { name: FIRST, front: { title: "First launch" } });
let server: ServerProcess | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("an update added after the server started", () => {
  it("is sent by the server to every reader the command left, none skipped", async () => {
    const emails = Array.from({ length: 20 }, (_, n) => `reader${n}@example.org`);
    await addReaders(setup.dataDir, emails);
    server = await startServer({
      env: {
        DATA_DIR: setup.dataDir,
        UPDATES_DIR: setup.updatesDir,
        SMTP_URL: setup.relay.url(),
        MAIL_FROM: FROM,
        MAIL_RATE_PER_SECOND: "10",
      },
    });
    // Added after the server read the folder: a git pull, a docker cp.
    writeUpdate(setup.updatesDir, ADDED, { title: "Added later" });
    const sender = startNewsletter(setup.env({ MAIL_RATE_PER_SECOND: "10" }), ["send", ADDED]);
    await setup.relay.waitForMails(3, 20_000);
    sender.kill("SIGHUP");
    expect(await exited(sender)).toBe(130);
    await setup.relay.waitForMails(20, 45_000);
    await server.waitForOutput(`the update ${ADDED} is sent`, 10_000);
    expect(outboxRows(setup.dataDir, ADDED).filter((row) => row.state !== "sent")).toEqual([]);
    expect([...perRecipient(setup.relay.mails).values()]).toEqual(Array(20).fill(1));
  }, 90_000);
});
