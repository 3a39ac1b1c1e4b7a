/**
 * A second confirmation mail leaves the first mail's link working (issue 39), through the production server with a
 * real SMTP server on loopback: a reader signs up, signs up again a day later (the server's clock moved by
 * tests/support/moved-clock.mjs) and gets a second mail, then presses Confirm in the first one. Needs `npm run build`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subscribe } from "../support/newsletter-http";
import { serverHarness } from "../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { subscribers } from "../support/subscribers-cli";

const harness = serverHarness("confirm-second-");
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

const tokenIn = (text: string | undefined) => /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text ?? "")?.[1] ?? null;

async function confirmPost(baseUrl: string, token: string) {
  const response = await fetch(`${baseUrl}/confirm?token=${token}`, {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { status: response.status, html: await response.text() };
}

describe("two confirmation mails to one reader", () => {
  it("the first mail's link confirms after the second mail went out, and the second's then says already", async () => {
    const dataDir = harness.scratchDir();
    const start = Date.now();
    const dayLater = new Date(start + 25 * 60 * 60_000).toISOString();
    const server = await harness.start(
      {
        SMTP_URL: relay.url(),
        MAIL_FROM: "Alex Placeholder <updates@example.com>",
        DATA_DIR: dataDir,
        MOVED_CLOCK: `${new Date(start).toISOString()},${dayLater}`,
      },
      { args: ["--import", "./tests/support/moved-clock.mjs", "server/index.mjs"] },
    );
    expect(await subscribe(server.url, "twice@example.com")).toMatchObject({ type: "success" });
    const [first] = await relay.waitForMails(1, 15_000);

    server.child.kill("SIGUSR2");
    await server.waitForOutput("moved-clock: now");
    // A day later the same address asks again: the list's rule sends a second mail (a new token).
    expect(await subscribe(server.url, "twice@example.com")).toMatchObject({ type: "info" });
    const mails = await relay.waitForMails(2, 15_000);
    const firstToken = tokenIn(first!.parsed.text);
    const secondToken = tokenIn(mails[1]!.parsed.text);
    expect(firstToken).not.toBeNull();
    expect(secondToken).not.toBeNull();
    expect(secondToken).not.toBe(firstToken);

    const confirmed = await confirmPost(server.url, firstToken!);
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain("You&#x27;re subscribed");
    const again = await confirmPost(server.url, secondToken!);
    expect(again.status).toBe(200);
    expect(again.html).toContain("You&#x27;re already on the list");
    expect((await subscribers(dataDir, ["show", "twice@example.com"])).stdout).toContain("state: confirmed");
  }, 60_000);
});
