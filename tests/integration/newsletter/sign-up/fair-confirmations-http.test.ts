/**
 * Fair confirmations through the production server over HTTP, with a real SMTP server on loopback: a flood
 * of sign-ups in every spelling of one Gmail address, from a handful of visitors behind a trusted proxy, puts at most 3
 * mails in that inbox, and a real reader who signs up during the flood gets their confirmation within a minute; 150
 * visitors, each a /64 of one /48, take only that network's share, and a reader from elsewhere is next in line. Needs
 * `npm run build` first (`npm test` does it).
 */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SUBSCRIBED_TOAST } from "~/newsletter/sign-up/messages";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { CONFIRMATION_LIMITS } from "~/newsletter/sign-up/confirmation-limits";
import { getHome, postForm, storedEmails } from "../../../support/newsletter/http";
import { inPool, serverHarness, type ServerProcess } from "../../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../../support/smtp-server";
import { subscribers } from "../../../support/subscribers-cli";

const harness = serverHarness("fair-confirmations-");
const FROM = "Alex Placeholder <updates@example.com>";
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

/** The server behind a proxy it trusts, the per-minute sign-up limit off (the flood is limited by the mail limits). */
const start = (dataDir: string, extra: Record<string, string> = {}) =>
  harness.start({
    SMTP_URL: relay.url(),
    MAIL_FROM: FROM,
    DATA_DIR: dataDir,
    TRUST_PROXY: "true",
    SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
    MAIL_RATE_PER_SECOND: "200",
    ...extra,
  });

async function signUpVia(server: ServerProcess, email: string, client: string) {
  const posted = await postForm(server.url, new URLSearchParams({ email, website: "" }), {
    "Content-Type": "application/x-www-form-urlencoded",
    "X-Forwarded-For": client,
  });
  return (await getHome(server.url, posted.cookie)).toast;
}

/** 130 spellings of one Gmail mailbox: +tags, dots, letter case, googlemail.com. */
function spellings(count: number): string[] {
  const name = "victim";
  return Array.from({ length: count }, (_, n) => {
    // Dots after any of the first five letters (32 patterns), then +tags; every other one at googlemail.com.
    const dots = name
      .split("")
      .map((char, i) => (((n % 32) >> i) & 1 ? `${char}.` : char))
      .join("")
      .replace(/\.$/, "");
    const local = n < 32 ? dots : `${dots}+${n}`;
    const domain = n % 2 === 0 ? "gmail.com" : "GoogleMail.com";
    return `${n % 5 === 0 ? local.toUpperCase() : local}@${domain}`;
  });
}

function confirmRows(dataDir: string): { recipient: string; state: string }[] {
  const db = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"), { readOnly: true });
  try {
    return db.prepare("select recipient, state from mail_outbox where kind = 'confirm' order by id").all() as {
      recipient: string;
      state: string;
    }[];
  } finally {
    db.close();
  }
}

const VISITORS = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5"];

describe("a flood of sign-ups against one mailbox", () => {
  it("puts at most 3 mails in that mailbox, and a real reader's confirmation arrives within a minute", async () => {
    const dataDir = harness.scratchDir();
    const server = await start(dataDir);
    const addresses = spellings(130);
    expect(new Set(addresses).size).toBe(130);
    expect(new Set(addresses.map(mailboxKey))).toEqual(new Set(["victim@gmail.com"]));

    let readerAskedAt = 0;
    const toasts = await inPool(addresses, 8, async (email) => {
      const index = addresses.indexOf(email);
      if (index === 65) {
        readerAskedAt = Date.now();
        expect(await signUpVia(server, "real.reader@example.org", "198.51.100.77")).toMatchObject({
          message: SUBSCRIBED_TOAST.message,
        });
      }
      return signUpVia(server, email, VISITORS[index % VISITORS.length]!);
    });
    // Every one of them is answered as the spec answers a new sign-up: the flooder learns nothing.
    expect(toasts.every((toast) => toast?.message === SUBSCRIBED_TOAST.message)).toBe(true);

    const readerMail = relay.waitForMails(1, 60_000).then(async () => {
      for (let n = 0; n < 600; n++) {
        const found = relay.mails.find((mail) => mail.envelopeTo[0] === "real.reader@example.org");
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return null;
    });
    const found = await readerMail;
    expect(found).not.toBeNull();
    const readerSeconds = (found!.at - readerAskedAt) / 1000;
    expect(readerSeconds).toBeLessThan(60);

    // The outbox holds every mail that will ever go for this flood: 3 for the mailbox, 1 for the reader.
    const rows = confirmRows(dataDir);
    expect(rows).toHaveLength(4);
    await relay.waitForMails(4, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const inVictimsBox = relay.mails.filter((mail) => mailboxKey(mail.envelopeTo[0]!) === "victim@gmail.com");
    expect(inVictimsBox).toHaveLength(3);
    // Held-back sign-ups stored nothing: only the three that got a mail are pending, besides the reader.
    expect(storedEmails(dataDir)).toHaveLength(4);
    console.info(
      `fair confirmations: ${inVictimsBox.length} mails reached the flooded mailbox; the real reader's came in ${readerSeconds.toFixed(2)} s`,
    );

    // The owner's log says so in a few lines, masked.
    const log = server.output();
    expect(log).toMatch(
      /a confirmation mail for v\*\*\*@(gmail|GoogleMail)\.com is held back .* had 3 in 24 h, at most 3/i,
    );
    expect(log.split("\n").filter((line) => line.includes("held back (not queued")).length).toBeLessThanOrEqual(6);
    expect(log).not.toMatch(/victim|v\.i\.c|real\.reader/i);

    const count = await subscribers(dataDir, ["count"]);
    expect(count.stderr).toContain("0 confirmed, 4 pending");
    expect(count.stderr).toContain("confirmation mails: 0 waiting, 4 sent");

    // A restart starts from the same counts: they are the outbox's rows.
    await server.stop();
    const again = await start(dataDir);
    expect(await signUpVia(again, "V.I.C.T.I.M+after@googlemail.com", "192.0.2.200")).toMatchObject({
      message: SUBSCRIBED_TOAST.message,
    });
    expect(await signUpVia(again, "after.restart@example.org", "192.0.2.201")).toMatchObject({
      message: SUBSCRIBED_TOAST.message,
    });
    await relay.waitForMails(5, 30_000);
    expect(confirmRows(dataDir).map((row) => row.recipient)).toEqual([
      ...rows.map((row) => row.recipient),
      "after.restart@example.org",
    ]);
  }, 120_000);

  it("keeps one visitor at 10 confirmation mails an hour, and another visitor's mail goes at once", async () => {
    const dataDir = harness.scratchDir();
    const server = await start(dataDir);
    const flood = Array.from({ length: 15 }, (_, n) => `flood${n}@example.com`);
    const toasts = await inPool(flood, 4, (email) => signUpVia(server, email, "203.0.113.9"));
    expect(toasts.every((toast) => toast?.message === SUBSCRIBED_TOAST.message)).toBe(true);
    expect(await signUpVia(server, "neighbour@example.org", "198.51.100.1")).toMatchObject({ type: "success" });
    await relay.waitForMails(11, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(relay.mails.map((mail) => mail.envelopeTo[0])).toContain("neighbour@example.org");
    expect(relay.mails.filter((mail) => mail.envelopeTo[0]!.startsWith("flood"))).toHaveLength(10);
    expect(server.output()).toMatch(/visitor 203\.0\.113\.9 had 10 in 1 h, at most 10/);
  }, 60_000);

  it("says once that the hourly cap holds mails back, and count tells waiting from sent", async () => {
    const dataDir = harness.scratchDir();
    const server = await start(dataDir, { MAIL_MAX_PER_HOUR: "2" });
    for (let n = 0; n < 4; n++) {
      expect(await signUpVia(server, `capped${n}@example.com`, `192.0.2.${n + 1}`)).toMatchObject({ type: "success" });
    }
    await relay.waitForMails(2, 30_000);
    await server.waitForOutput("Mail: the hourly cap holds", 10_000);
    expect(server.output()).toMatch(
      /the hourly cap holds 2 confirm mail\(s\) back: 2 sent in the last hour, at most 2/,
    );
    expect(relay.mails).toHaveLength(2);
    const count = await subscribers(dataDir, ["count"]);
    expect(count.stderr).toContain("confirmation mails: 2 waiting, 2 sent");
  }, 60_000);

  it("holds one /48 to its share, and a reader from another network is next in line after 150 /64s of it", async () => {
    const dataDir = harness.scratchDir();
    const server = await start(dataDir);
    const flood = Array.from({ length: 150 }, (_, n) => `net${n}@example.com`);
    const floodStarted = Date.now();
    const toasts = await inPool(flood, 8, (email) =>
      signUpVia(server, email, `2001:db8:5:${flood.indexOf(email).toString(16)}::1`),
    );
    const floodSeconds = (Date.now() - floodStarted) / 1000;
    expect(toasts.every((toast) => toast?.message === SUBSCRIBED_TOAST.message)).toBe(true);
    const askedAt = Date.now();
    expect(await signUpVia(server, "elsewhere@example.org", "198.51.100.77")).toMatchObject({ type: "success" });

    // The network's share of the hour: the rest of its sign-ups stored nothing and queued nothing.
    const lines = placesInLine(dataDir);
    const fromFlood = lines.filter((row) => row.recipient.startsWith("net"));
    expect(fromFlood).toHaveLength(CONFIRMATION_LIMITS.perNetwork);
    // In line, the reader comes after only the flood's mails queued more than a minute before: the order itself, so
    // the test never waits a real minute for a relay that would be slower than this one.
    const reader = lines.find((row) => row.recipient === "elsewhere@example.org")!;
    const ahead = fromFlood.filter((row) => row.claimKey < reader.claimKey).length;
    expect(ahead).toBeLessThanOrEqual(1 + Math.floor(floodSeconds / 60));

    const mail = await waitForMailTo("elsewhere@example.org");
    const seconds = (mail.at - askedAt) / 1000;
    console.info(
      `150 /64s of one /48: ${fromFlood.length} queued, ${ahead} ahead of the other network's reader, whose mail came ` +
        `in ${seconds.toFixed(2)} s`,
    );
    expect(seconds).toBeLessThan(60);
    expect(server.output()).toMatch(/the network 2001:db8:5::\/48 had 20 in 1 h, at most 20/);
  }, 120_000);
});

/** Every confirmation row's place in line (claim-order.server.ts), read beside the running server. */
function placesInLine(dataDir: string): { recipient: string; claimKey: number }[] {
  const db = new DatabaseSync(path.join(dataDir, "mail-outbox.sqlite"), { readOnly: true });
  try {
    return db
      .prepare("select recipient, claim_key as claimKey from mail_outbox where kind = 'confirm' order by id")
      .all() as { recipient: string; claimKey: number }[];
  } finally {
    db.close();
  }
}

/** The first mail the relay received for `address`, waiting on the relay's arrivals (at most a minute). */
async function waitForMailTo(address: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = relay.mails.find((mail) => mail.envelopeTo[0] === address);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail for ${address} within a minute`);
    await relay.waitForMails(relay.mails.length + 1, Math.max(1, deadline - Date.now())).catch(() => {});
  }
}
