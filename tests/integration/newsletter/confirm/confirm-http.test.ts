/**
 * Double opt-in through the production server, with a real SMTP server on loopback: the sign-up without JavaScript,
 * the mail as it arrives (headers and both parts), GET versus the button, the owner's record, a relay that is down,
 * a relay that accepts connections and never answers, a restart with mails in the outbox, the capture folder, and mail
 * off.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { simpleParser } from "mailparser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { postForm, subscribe, storedEmails } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { subscribers } from "../../../support/subscribers-cli";
import { confirmTokenIn as tokenIn, pressConfirm as confirmPost } from "../../../support/confirm-link";

const harness = serverHarness("confirm-http-");
const FROM = "Alex Placeholder <updates@example.com>";
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

const mailEnv = (dataDir: string) => ({ SMTP_URL: relay.url(), MAIL_FROM: FROM, DATA_DIR: dataDir });
// A mail the relay did not take goes again a second later, not the real 10 s: these tests wait on it going again.
const quickRetry = { MAIL_FIRST_RETRY_SECONDS: "1" };
describe("double opt-in with a loopback relay", () => {
  it("mails one confirmation, a GET of its link changes nothing, the button confirms", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start(mailEnv(dataDir));
    const started = Date.now();
    expect(await subscribe(server.url, "Reader@Example.com")).toMatchObject({ message: "Successfully subscribed!" });

    const [mail] = await relay.waitForMails(1, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    const parsed = mail!.parsed;
    // The form keeps the local part as typed and lowercases the domain.
    expect(mail!.envelopeTo).toEqual(["Reader@example.com"]);
    expect(parsed.from?.text).toBe('"Alex Placeholder" <updates@example.com>');
    expect(parsed.subject).toBe("Confirm your subscription to Alex Placeholder's updates");
    expect(parsed.date).toBeInstanceOf(Date);
    expect(parsed.messageId).toMatch(/^<.+@.+>$/);
    expect(parsed.text).toContain("ignoring this mail is enough to stay off the list");
    expect(parsed.html).toContain("ignoring this mail is enough to stay off the list");
    const token = tokenIn(parsed.text ?? "");
    expect(token).not.toBeNull();
    expect(tokenIn(String(parsed.html))).toBe(token);
    // The outbox never held the token, and the list holds only its hash.
    expect(readFileSync(path.join(dataDir, "mail-outbox.sqlite")).includes(token!)).toBe(false);

    // A mail scanner opening the link, twice: the reader stays pending.
    for (let n = 0; n < 2; n++) {
      const page = await fetch(`${server.url}/confirm?token=${token}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<button[^>]*type="submit"[^>]*>Confirm<\/button>/);
    }
    const pending = await subscribers(dataDir, ["show", "reader@example.com"]);
    expect(pending.stdout).toContain("state: pending");

    const confirmed = await confirmPost(server.url, token!);
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain("You&#x27;re subscribed");
    // A reused link: the reader is on the list already, and the page says so (not "sign up again").
    const again = await confirmPost(server.url, token!);
    expect(again.status).toBe(200);
    expect(again.html).toContain("You&#x27;re already on the list");
    expect(again.html).not.toContain("sign up again");

    const record = await subscribers(dataDir, ["show", "reader@example.com"]);
    expect(record.code).toBe(0);
    expect(record.stdout).toContain("state: confirmed");
    expect(record.stdout).toMatch(/^confirmed: \d{4}-\d\d-\d\dT/m);
    expect(record.stdout).toContain("from page: /");
    expect(record.stdout).toContain("  Join the journey • No spam • Unsubscribe anytime");
    const count = await subscribers(dataDir, ["count"]);
    expect(count).toMatchObject({ stdout: "1\n", stderr: expect.stringContaining("1 confirmed, 0 pending") });
    expect(relay.mails).toHaveLength(1);
  });

  it("records the page a sign-up was posted from: an update's page, not the home page", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start(mailEnv(dataDir));
    const update = `${server.url}/updates/2025-10-15-first-users`;
    const body = new URLSearchParams({ email: "from-update@example.com", website: "" });
    const posted = await postForm(server.url, body, {
      "Content-Type": "application/x-www-form-urlencoded",
      Referer: `${update}?utm_source=newsletter`,
    });
    expect(posted).toMatchObject({ status: 303, location: "/" });
    // Another site's page is no page of ours: the record says the home page's form.
    await postForm(server.url, new URLSearchParams({ email: "from-elsewhere@example.com", website: "" }), {
      "Content-Type": "application/x-www-form-urlencoded",
      Referer: "https://elsewhere.example/updates/2025-10-15-first-users",
    });
    await relay.waitForMails(2);
    const fromUpdate = await subscribers(dataDir, ["show", "from-update@example.com"]);
    expect(fromUpdate.stdout).toContain("from page: /updates/2025-10-15-first-users\n");
    const fromElsewhere = await subscribers(dataDir, ["show", "from-elsewhere@example.com"]);
    expect(fromElsewhere.stdout).toContain("from page: /\n");
  });

  it("answers a pending address's second sign-up as a duplicate, without a second mail", async () => {
    const server = await harness.start(mailEnv(harness.scratchDir()));
    await subscribe(server.url, "twice@example.com");
    await relay.waitForMails(1);
    expect(await subscribe(server.url, "twice@example.com")).toMatchObject({ message: "Already subscribed" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(relay.mails).toHaveLength(1);
  });

  it("acknowledges 20 sign-ups at once while the relay is down, and delivers each mail once when it is back", async () => {
    const dataDir = harness.scratchDir();
    // Twenty sign-ups from this one client: above the per-visitor limit on confirmation mails, lifted here.
    const server = await harness.start({ ...mailEnv(dataDir), ...quickRetry, CONFIRM_MAILS_PER_VISITOR: "0" });
    await relay.down();
    const emails = Array.from({ length: 20 }, (_, n) => `down${n}@example.com`);
    for (const email of emails) {
      const started = Date.now();
      expect(await subscribe(server.url, email)).toMatchObject({ message: "Successfully subscribed!" });
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    expect(storedEmails(dataDir)).toEqual(emails);
    await relay.up();
    await relay.waitForMails(20, 40_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const recipients = relay.mails.map((mail) => mail.envelopeTo[0]);
    expect(recipients.sort()).toEqual([...emails].sort());
  }, 60_000);

  it("acknowledges sign-ups at once while the relay accepts connections and never answers, and delivers each mail once when it answers again", async () => {
    const dataDir = harness.scratchDir();
    // Nodemailer takes its waits from the URL's query as well: a second for the greeting here, 10 s by default.
    const server = await harness.start({
      ...mailEnv(dataDir),
      SMTP_URL: `${relay.url()}?connectionTimeout=2000&greetingTimeout=1000&socketTimeout=2000`,
    });
    await relay.stall();
    const emails = Array.from({ length: 4 }, (_, n) => `stalled${n}@example.com`);
    for (const email of emails) {
      const started = Date.now();
      expect(await subscribe(server.url, email)).toMatchObject({ message: "Successfully subscribed!" });
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    expect(storedEmails(dataDir)).toEqual(emails);

    // One attempt per mail, each connection given up a second after it met the silence, each mail back in the queue.
    await expect
      .poll(() => relay.stalled.filter((connection) => connection.closedAt !== null).length, { timeout: 10_000 })
      .toBe(emails.length);
    for (const connection of relay.stalled) {
      expect(connection.closedAt! - connection.openedAt).toBeGreaterThanOrEqual(900);
      expect(connection.closedAt! - connection.openedAt).toBeLessThan(3_000);
    }
    const outbox = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"), { readOnly: true });
    try {
      const rows = outbox.prepare("select state, attempts, last_error from mail_outbox order by id").all();
      expect(rows).toEqual(emails.map(() => ({ state: "queued", attempts: 1, last_error: "Greeting never received" })));
    } finally {
      outbox.close();
    }
    expect(relay.mails).toHaveLength(0);
    // One line per failed attempt, the address masked, like lines past three a minute held back.
    expect(server.output()).not.toMatch(/stalled\d@/);
    expect(server.output().match(/^Mail: the .*$/gm)).toEqual(
      Array.from(
        { length: 3 },
        () => "Mail: the confirm mail to s***@example.com will be retried (attempt 1): Greeting never received",
      ),
    );

    await relay.up();
    // The first retry is due 10 s after the first failed attempt.
    await relay.waitForMails(emails.length, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([...emails].sort());
    expect(relay.stalled).toHaveLength(emails.length);
  }, 40_000);

  it("sends what the outbox held after a restart", async () => {
    const dataDir = harness.scratchDir();
    const first = await harness.start({ ...mailEnv(dataDir), ...quickRetry });
    await relay.down();
    for (const email of ["r1@example.com", "r2@example.com", "r3@example.com"]) await subscribe(first.url, email);
    expect((await first.stop()).code).toBe(0);
    await relay.up();
    await harness.start({ ...mailEnv(dataDir), ...quickRetry });
    await relay.waitForMails(3, 30_000);
    expect(relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "r1@example.com",
      "r2@example.com",
      "r3@example.com",
    ]);
  }, 60_000);

  it("erases a reader from the list and their mails from the outbox with remove", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start(mailEnv(dataDir));
    await relay.down();
    await subscribe(server.url, "Leaving@example.com");
    const outboxRows = (address = "%") => {
      const db = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"), { readOnly: true });
      try {
        const count = db.prepare("select count(*) as n from mail_outbox where lower(recipient) like ?");
        return (count.get(address) as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(outboxRows("leaving@example.com")).toBe(1);
    const run = await subscribers(dataDir, ["remove", "leaving@EXAMPLE.com"]);
    expect(run).toMatchObject({
      code: 0,
      stderr: "Removed leaving@EXAMPLE.com from the list and 1 mail from the outbox.\n",
    });
    // The address is gone from the outbox; the row stays in its place, skipped, so no mail goes and counts hold.
    expect(outboxRows("leaving@example.com")).toBe(0);
    expect(outboxRows()).toBe(1);
    expect(storedEmails(dataDir)).toEqual([]);
  });

  it("writes the mail into the capture folder with SMTP_URL=file://", async () => {
    const dataDir = harness.scratchDir();
    const folder = path.join(dataDir, "captured");
    const server = await harness.start({ SMTP_URL: `file://${folder}`, DATA_DIR: dataDir });
    await subscribe(server.url, "capture@example.com");
    await expect.poll(() => (existsSync(folder) ? readdirSync(folder).length : 0), { timeout: 10_000 }).toBe(1);
    const [file] = readdirSync(folder);
    const parsed = await simpleParser(readFileSync(path.join(folder, file!)));
    expect(parsed.subject).toBe("Confirm your subscription to Alex Placeholder's updates");
    expect(tokenIn(parsed.text ?? "")).not.toBeNull();
  });

  it("without SMTP_URL, stores the reader confirmed at the sign-up's time: no outbox, no mail", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    expect(await subscribe(server.url, "plain@example.com")).toMatchObject({ message: "Successfully subscribed!" });
    expect(existsSync(path.join(dataDir, "mail-outbox.sqlite"))).toBe(false);
    const list = await subscribers(dataDir, ["list"]);
    // Nothing could confirm by mail: the dialog's consent is the record, confirmed when it was given.
    expect(list.stdout).toMatch(/^plain@example\.com\t(\S+)\tconfirmed\t\1\n$/);
    expect(relay.mails).toHaveLength(0);
  });
});
