/**
 * A second confirmation mail leaves the first mail's link working, through the production server with a
 * real SMTP server on loopback: a reader signs up, signs up again a day later (the server's clock moved by
 * tests/support/moved-clock.mjs) and gets a second mail, then presses Confirm in the first one. Needs `npm run build`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { subscribers } from "../../../support/subscribers-cli";
import { confirmTokenIn, pressConfirm } from "../../../support/confirm-link";

const harness = serverHarness("confirm-second-");
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

/**
 * A reader signs up, and again a day later (the server's clock moved): two confirmation mails. `beforeSecond` scripts
 * the relay for the second one. Answers the two mails' tokens and the list's folder.
 */
async function twoMails(email: string, beforeSecond: () => void = () => {}) {
  const dataDir = harness.scratchDir();
  const start = Date.now();
  const dayLater = new Date(start + 25 * 60 * 60_000).toISOString();
  const server = await harness.start(
    {
      SMTP_URL: relay.url(),
      MAIL_FROM: "Alex Placeholder <updates@example.com>",
      DATA_DIR: dataDir,
      // A refused mail goes again a second later, not the real 10 s: what the test waits on is that it goes again.
      MAIL_FIRST_RETRY_SECONDS: "1",
      MOVED_CLOCK: `${new Date(start).toISOString()},${dayLater}`,
    },
    { args: ["--import", "./tests/support/moved-clock.mjs", "server/index.mjs"] },
  );
  expect(await subscribe(server.url, email)).toMatchObject({ type: "success" });
  const [first] = await relay.waitForMails(1, 15_000);

  server.child.kill("SIGUSR2");
  await server.waitForOutput("moved-clock: now");
  beforeSecond();
  // A day later the same address asks again: the list's rule sends a second mail (a new token).
  expect(await subscribe(server.url, email)).toMatchObject({ type: "info" });
  // A refused first attempt is tried again MAIL_FIRST_RETRY_SECONDS later.
  const mails = await relay.waitForMails(2, 30_000);
  const firstToken = confirmTokenIn(first!.parsed.text ?? "");
  const secondToken = confirmTokenIn(mails[1]!.parsed.text ?? "");
  expect(firstToken).not.toBeNull();
  expect(secondToken).not.toBeNull();
  expect(secondToken).not.toBe(firstToken);
  return { server, dataDir, firstToken: firstToken!, secondToken: secondToken! };
}

describe("two confirmation mails to one reader", () => {
  it("the first mail's link confirms after the second mail went out, and the second's then says already", async () => {
    const { server, dataDir, firstToken, secondToken } = await twoMails("twice@example.com");
    const confirmed = await pressConfirm(server.url, firstToken);
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain("You&#x27;re subscribed");
    const again = await pressConfirm(server.url, secondToken);
    expect(again.status).toBe(200);
    expect(again.html).toContain("You&#x27;re already on the list");
    expect((await subscribers(dataDir, ["show", "twice@example.com"])).stdout).toContain("state: confirmed");
  }, 60_000);

  it("the first mail's link still confirms when the relay refused the second mail once and it went again", async () => {
    const { server, firstToken } = await twoMails("retried@example.com", () =>
      relay.throttleAddress("retried@example.com", 1),
    );
    expect(relay.refusals).toEqual([{ address: "retried@example.com", code: 451 }]);
    const confirmed = await pressConfirm(server.url, firstToken);
    expect(confirmed.html).toContain("You&#x27;re subscribed");
  }, 90_000);
});
