// The owner's optional welcome mail (app/newsletter/welcome/), end to end with the production server and a real relay
// on loopback: a reader signs up, presses Confirm in the confirmation mail, and gets the welcome once; a second press
// of the same link sends none; without the welcome file nobody gets one. The server reads WELCOME_FILE (default
// app/content/welcome.md) at run time, as it reads the updates, so the test points it at a fixture.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openOutbox } from "~/mail/outbox.server";
import { parseWelcome } from "~/newsletter/welcome/welcome-file.server";
import { confirmTokenIn, pressConfirm } from "../../../support/confirm-link";
import { subscribe } from "../../../support/newsletter/http";
import { ROOT, serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";

const harness = serverHarness("welcome-mail-");
const FIXTURE = path.join(ROOT, "tests/fixtures/welcome/welcome.md");
const SUBJECT = "Welcome aboard: what you signed up for";
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

const welcomes = () => relay.mails.filter((mail) => mail.parsed.subject === SUBJECT);
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startWith(welcomeFile: string) {
  const dataDir = harness.scratchDir();
  const server = await harness.start({
    SMTP_URL: relay.url(),
    MAIL_FROM: "Alex Placeholder <updates@example.com>",
    DATA_DIR: dataDir,
    WELCOME_FILE: welcomeFile,
  });
  return { server, dataDir };
}

/** Signs up and presses Confirm in the mail: the token, and the confirm page's answer. */
async function signUpAndConfirm(baseUrl: string, email: string) {
  const before = relay.mails.length;
  await subscribe(baseUrl, email);
  const [confirmation] = (await relay.waitForMails(before + 1, 10_000)).slice(before);
  const token = confirmTokenIn(confirmation!.parsed.text ?? "")!;
  expect(token).toBeTruthy();
  return { token, answer: await pressConfirm(baseUrl, token) };
}

const welcomeRows = (dataDir: string) => {
  const outbox = openOutbox(path.join(dataDir, "mail-outbox.sqlite"));
  try {
    return outbox.rows({ kind: "welcome" });
  } finally {
    outbox.close();
  }
};

describe("the welcome mail", () => {
  it("goes once to a newly confirmed reader, in the mail layout, with their unsubscribe link", async () => {
    const { server, dataDir } = await startWith(FIXTURE);
    const { token, answer } = await signUpAndConfirm(server.url, "new.reader@example.com");
    expect(answer.status).toBe(200);

    await relay.waitForMails(2, 10_000);
    expect(welcomes()).toHaveLength(1);
    const [welcome] = welcomes();
    expect(welcome!.envelopeTo).toEqual(["new.reader@example.com"]);
    const { parsed, raw } = welcome!;
    expect(parsed.text).toContain("Thanks for confirming. You will get an update each time a project\nlaunches");
    expect(parsed.html).toContain("<h2>Where to start</h2>");
    expect(parsed.html).toContain("<blockquote>");
    // The reader's own unsubscribe link: in the footer of both parts and as the one-click header (RFC 8058).
    const unsubscribe = /https?:\/\/[^\s<>"]+\/unsubscribe\?token=[0-9a-f-]{36}/.exec(parsed.text ?? "")?.[0];
    expect(unsubscribe).toBeTruthy();
    expect(parsed.html).toContain(unsubscribe);
    expect(raw).toMatch(/^List-Unsubscribe: <[^>]+\/unsubscribe\?token=[0-9a-f-]{36}>/im);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/im);
    // The link works: it opens the reader's unsubscribe page on the running site.
    const page = await fetch(`${server.url}${new URL(unsubscribe!).pathname}${new URL(unsubscribe!).search}`);
    expect(page.status).toBe(200);
    await page.arrayBuffer();

    // The same link pressed again: "already on the list", and no second welcome.
    const again = await pressConfirm(server.url, token);
    expect(again.html).toContain("already on the list");
    await settle(2_000);
    expect(welcomes()).toHaveLength(1);
    expect(welcomeRows(dataDir).map((row) => row.state)).toEqual(["sent"]);
  });

  it("is not sent when there is no welcome file", async () => {
    const { server, dataDir } = await startWith(path.join(harness.scratchDir(), "welcome.md"));
    const { answer } = await signUpAndConfirm(server.url, "plain.reader@example.com");
    expect(answer.status).toBe(200);
    await settle(2_000);
    // Only the confirmation went out.
    expect(relay.mails).toHaveLength(1);
    expect(welcomeRows(dataDir)).toEqual([]);
  });

  it("takes the docs' sample as it is (docs/examples/welcome.md)", () => {
    const sample = parseWelcome("welcome.md", readFileSync(path.join(ROOT, "docs/examples/welcome.md"), "utf8"));
    expect(sample.subject).toBe("Welcome: you're on the list");
    expect(sample.markdown).toMatch(/^Thanks for confirming!/);
  });
});
