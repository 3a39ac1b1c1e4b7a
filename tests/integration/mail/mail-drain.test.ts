/**
 * The mail path against a real SMTP server on loopback: the outbox, the drain, the relay's moods, the log of failed
 * attempts, capture.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startRunner } from "~/mail/runner.server";
import { type Composer, drainDue } from "~/mail/drain.server";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { createMailTransport, type MailTransport } from "~/mail/transport.server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";

const FROM = "Alex Placeholder <updates@example.com>";
let dir: string;
let outbox: Outbox;
let relay: TestSmtpServer;
const transports: MailTransport[] = [];

const smtpTransport = (url = relay.url()) => {
  const transport = createMailTransport({ kind: "smtp", url }, FROM);
  transports.push(transport);
  return transport;
};
const compose: Composer = (row) => ({
  message: { to: row.recipient, subject: `Hello ${row.id}`, text: `Text ${row.id}`, html: `<p>HTML ${row.id}</p>` },
});
const queue = (count: number) => {
  for (let n = 0; n < count; n++) outbox.enqueue({ kind: "confirm", recipient: `reader${n}@example.com` });
};

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mail-drain-"));
  outbox = openOutbox(path.join(dir, "mail-outbox.sqlite"));
  relay = await startSmtpServer();
});
afterEach(async () => {
  for (const transport of transports.splice(0)) transport.close();
  outbox.close();
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("draining the outbox through a loopback relay", () => {
  it("delivers each mail once, with both parts and the sender", async () => {
    queue(3);
    const pass = await drainDue({ outbox, transport: smtpTransport(), composers: { confirm: compose } });
    expect(pass).toMatchObject({ sent: 3, failed: 0, stopped: null });
    const mails = await relay.waitForMails(3);
    expect(mails.map((mail) => mail.envelopeTo)).toEqual([
      ["reader0@example.com"],
      ["reader1@example.com"],
      ["reader2@example.com"],
    ]);
    const first = mails[0]!.parsed;
    expect(first.from?.text).toBe('"Alex Placeholder" <updates@example.com>');
    expect(first.text?.trim()).toMatch(/^Text \d+$/);
    expect(first.html).toMatch(/<p>HTML \d+<\/p>/);
    expect(outbox.counts()).toMatchObject({ sent: 3, queued: 0, sending: 0 });
  });

  it("retries 4xx throttling with backoff, and none is reported failed", async () => {
    queue(4);
    relay.throttle(3, 421);
    let clock = Date.now();
    const options = { outbox, transport: smtpTransport(), composers: { confirm: compose }, now: () => clock };
    const first = await drainDue(options);
    expect(first).toMatchObject({ sent: 1, retried: 3, failed: 0 });
    const waiting = outbox.rows({ state: "queued" });
    expect(waiting.map((row) => row.nextAttemptAt - clock)).toEqual([10_000, 10_000, 10_000]);
    clock += 10_000;
    expect(await drainDue(options)).toMatchObject({ sent: 3, failed: 0 });
    expect(relay.mails).toHaveLength(4);
    expect(new Set(relay.mails.map((mail) => mail.envelopeTo[0])).size).toBe(4);
  });

  it("records a 5xx for one address with the relay's words and goes on", async () => {
    queue(3);
    relay.reject("reader1@example.com");
    const pass = await drainDue({ outbox, transport: smtpTransport(), composers: { confirm: compose } });
    expect(pass).toMatchObject({ sent: 2, failed: 1 });
    const [failed] = outbox.rows({ state: "failed" });
    expect(failed).toMatchObject({ recipient: "reader1@example.com" });
    expect(failed!.lastError).toMatch(/550 5\.1\.1 Recipient address rejected: User unknown/);
  });

  it("stops at a refused login, releasing the mail uncounted and never printing the password", async () => {
    queue(2);
    relay.refuseAuth(true);
    const url = relay.url("owner", "pa ss/w0rd-secret");
    const pass = await drainDue({ outbox, transport: smtpTransport(url), composers: { confirm: compose } });
    expect(pass.stopped).toMatch(/535/);
    expect(pass.stopped).not.toContain("secret");
    expect(pass).toMatchObject({ sent: 0, retried: 0, failed: 0 });
    expect(outbox.counts()).toMatchObject({ queued: 2, sent: 0, failed: 0 });
    expect(outbox.rows().map((row) => row.attempts)).toEqual([0, 0]);
    relay.refuseAuth(false);
    expect(await drainDue({ outbox, transport: smtpTransport(url), composers: { confirm: compose } })).toMatchObject({
      sent: 2,
    });
  });

  it("caps a kind per hour, the rest waiting in the outbox", async () => {
    queue(5);
    const pass = await drainDue({
      outbox,
      transport: smtpTransport(),
      composers: { confirm: compose },
      maxPerHour: { confirm: 3 },
    });
    expect(pass).toMatchObject({ sent: 3, capped: true });
    expect(outbox.counts().queued).toBe(2);
  });

  it("paces sends at ratePerSecond", async () => {
    queue(5);
    const started = performance.now();
    await drainDue({ outbox, transport: smtpTransport(), composers: { confirm: compose }, ratePerSecond: 10 });
    // Five starts 100 ms apart: the last one at least 400 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(relay.mails).toHaveLength(5);
  });

  it("gives up an attempt on a relay that greets and then stalls within the socket timeout, and sends each later", async () => {
    queue(3);
    await relay.stall(true);
    // Nodemailer takes its waits from the URL's query as well: half a second here, 10 s and 30 s by default.
    const url = `${relay.url()}?connectionTimeout=500&greetingTimeout=500&socketTimeout=500`;
    let clock = Date.now();
    const options = { outbox, transport: smtpTransport(url), composers: { confirm: compose }, now: () => clock };
    const started = performance.now();
    expect(await drainDue(options)).toMatchObject({ sent: 0, retried: 3, failed: 0, stopped: null });
    // Three attempts one after the other, each given up half a second after the relay fell silent.
    expect(performance.now() - started).toBeLessThan(3 * 500 + 1_500);
    expect(relay.stalled).toHaveLength(3);
    // The client closes each silent connection it gave up on (the relay sees it a moment later).
    await expect.poll(() => relay.stalled.every((connection) => connection.closedAt !== null)).toBe(true);
    for (const connection of relay.stalled) {
      expect(connection.closedAt! - connection.openedAt).toBeGreaterThanOrEqual(450);
      expect(connection.closedAt! - connection.openedAt).toBeLessThan(1_500);
    }
    expect(outbox.rows().map((row) => [row.state, row.attempts])).toEqual([
      ["queued", 1],
      ["queued", 1],
      ["queued", 1],
    ]);
    expect(outbox.rows()[0]!.lastError).toMatch(/timeout/i);

    await relay.up();
    clock += 10_000;
    expect(await drainDue(options)).toMatchObject({ sent: 3, retried: 0, failed: 0 });
    expect(relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "reader0@example.com",
      "reader1@example.com",
      "reader2@example.com",
    ]);
  });

  it("keeps sign-ups queued while the relay is down, and delivers each once when it is back", async () => {
    await relay.down();
    queue(20);
    let clock = Date.now();
    const drainer = startRunner({
      outbox,
      transport: smtpTransport(),
      composers: { confirm: compose },
      lanes: [{ kinds: ["confirm"] }],
      now: () => clock,
      idleMs: 50,
    });
    try {
      await expect.poll(() => outbox.rows()[0]!.attempts, { timeout: 10_000 }).toBeGreaterThan(0);
      // Settled: every row back in the queue and none due on the held clock, so no attempt is under way. An attempt
      // still failing after the clock moves would be put off from the new time and never come due in this test.
      const settled = () => outbox.rows().every((row) => row.state === "queued" && row.nextAttemptAt > clock);
      await expect.poll(settled, { timeout: 10_000 }).toBe(true);
      await relay.up();
      clock += 5 * 60_000;
      drainer.wake();
      await relay.waitForMails(20);
      await expect.poll(() => outbox.counts().sent, { timeout: 10_000 }).toBe(20);
    } finally {
      await drainer.stop();
    }
    const recipients = relay.mails.map((mail) => mail.envelopeTo[0]);
    expect(new Set(recipients).size).toBe(20);
    expect(recipients).toHaveLength(20);
  });
});

describe("the log of failed attempts", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it("writes one line per failed attempt, the address masked and no password, three like lines a minute at most", async () => {
    // A throttle of its own, on a clock the test moves: the drain's modules loaded afresh once Date is the fake one.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.resetModules();
    const fresh = await import("~/mail/drain.server");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const lines = () => warn.mock.calls.map((call) => call.join(" "));
    // A first reader reached proves the relay takes readers: the "not now"s after it are each reader's own.
    outbox.enqueue({ kind: "confirm", recipient: "first.reader@example.com" });
    for (let n = 0; n < 5; n++) {
      outbox.enqueue({ kind: "confirm", recipient: `private.reader${n}@example.com` });
      relay.throttleAddress(`private.reader${n}@example.com`, 1, 451);
    }
    outbox.enqueue({ kind: "confirm", recipient: "unknown.reader@example.net" });
    relay.reject("unknown.reader@example.net");
    let clock = Date.now();
    const options = {
      outbox,
      transport: smtpTransport(relay.url("owner", "smtp-secret-pass")),
      composers: { confirm: compose },
      now: () => clock,
    };

    expect(await fresh.drainDue(options)).toMatchObject({ sent: 1, retried: 5, failed: 1 });
    // Five "not now"s: three lines, the other two held back; the refusal is another kind of line, written.
    expect(lines()).toEqual([
      ...Array.from(
        { length: 3 },
        () =>
          "Mail: the confirm mail to p***@example.com will be retried (attempt 1): 451 4.7.1 Throttling: try again later",
      ),
      "Mail: the confirm mail to u***@example.net failed (attempt 1): 550 5.1.1 Recipient address rejected: User unknown",
    ]);
    for (const line of lines()) {
      expect(line).not.toMatch(/private|unknown\.reader|owner|secret|\n/);
    }

    // A minute on, the next such line is written, and says how many were held back.
    warn.mockClear();
    vi.setSystemTime(Date.now() + 60_000);
    clock += 10_000;
    relay.throttle(1, 451);
    expect(await fresh.drainDue(options)).toMatchObject({ sent: 4, retried: 1 });
    expect(lines()).toEqual([
      "Mail: the confirm mail to p***@example.com will be retried (attempt 2): 451 4.7.0 Too many messages, slow down (2 more like it held back)",
    ]);
  });
});

describe("capture mode", () => {
  it("writes each mail as a whole .eml file", async () => {
    const folder = path.join(dir, "mail");
    const transport = createMailTransport({ kind: "capture", folder }, FROM);
    queue(2);
    expect(await drainDue({ outbox, transport, composers: { confirm: compose } })).toMatchObject({ sent: 2 });
    const files = readdirSync(folder).sort();
    expect(files).toHaveLength(2);
    expect(files.every((name) => name.endsWith(".eml"))).toBe(true);
    const parsed = await simpleParser(readFileSync(path.join(folder, files[0]!)));
    expect(parsed.to && "text" in parsed.to ? parsed.to.text : "").toMatch(/reader\d@example\.com/);
    expect(parsed.html).toMatch(/<p>HTML/);
    expect(outbox.rows()[0]!.lastError).toMatch(/^captured .*\.eml$/);
  });
});
