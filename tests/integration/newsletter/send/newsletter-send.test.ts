/**
 * `npm run newsletter -- send` as the owner runs it (the script on the production build), against a real SMTP server
 * on loopback that parses what arrives: the mail's headers and parts, pending readers left out, a 5xx for one reader, a refused login, drafts,
 * a hostile title, --test, --dry-run, two sends at once, status.
 */
import { describe, expect, it } from "vitest";
import { createMailTransport } from "~/mail/transport.server";
import { composeUpdateMail } from "~/newsletter/send/update-mail.server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import { subscribers } from "../../../support/subscribers-cli";
import {
  addReaders,
  exited,
  FROM,
  newsletter,
  outboxRows,
  perRecipient,
  sendEnv,
  signUpWithConfirmation,
  startNewsletter,
  writeUpdate,
} from "../../../support/newsletter/cli";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("newsletter-send-", {
  name: NAME,
  front: { title: "First launch", summary: "It is out" },
  body: "It is **out**: [see](https://x.example/a).",
});

const readers = (count: number, prefix = "reader") =>
  Array.from({ length: count }, (_, n) => `${prefix}${n}@example.org`);

describe("npm run newsletter -- send", () => {
  it("sends one mail per reader, to that reader alone, with the update, the unsubscribe headers and both parts", async () => {
    const listed = await addReaders(setup.dataDir, readers(5));
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.stderr).toContain(`Update ${NAME}: 5 of 5 sent, 0 skipped (unsubscribed), 0 failed, 0 uncertain.`);
    expect(run.code).toBe(0);
    expect(setup.relay.mails).toHaveLength(5);
    expect([...perRecipient(setup.relay.mails).values()]).toEqual([1, 1, 1, 1, 1]);
    for (const row of listed) {
      const mail = setup.relay.mails.find((received) => received.envelopeTo[0] === row.email)!;
      const { parsed, raw } = mail;
      expect(mail.envelopeTo).toEqual([row.email]);
      expect(parsed.to && "text" in parsed.to ? parsed.to.text : "").toBe(row.email);
      expect(parsed.subject).toBe("First launch");
      const link = `https://example.com/unsubscribe?token=${row.unsubscribeToken}`;
      const header = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, " ");
      expect(header.split(/\r?\n/)).toContain(`List-Unsubscribe: <${link}>`);
      // On one line as written, not only once unfolded: a folded one fails DKIM after some relays.
      expect(raw.slice(0, raw.search(/\r?\n\r?\n/)).split(/\r?\n/)).toContain(`List-Unsubscribe: <${link}>`);
      expect(header).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
      expect(header).toMatch(/^List-ID: Alex Placeholder updates <updates\.example\.com>\r?$/im);
      expect(header.match(/^(To|Cc|Bcc):/gim)).toEqual(["To:"]);
      expect(parsed.messageId).toMatch(/^<update\.2026-11-20-first-launch\.[0-9a-f]{24}@mail\.example\.net>$/);
      expect(parsed.date).toBeInstanceOf(Date);
      expect(parsed.text).toContain(`https://example.com/updates/${NAME}`);
      expect(parsed.text).toContain(link);
      expect(parsed.html).toContain('<a href="https://x.example/a"');
      expect(parsed.html).toContain(link);
      expect(parsed.html).not.toMatch(/<img|<script|@import|url\(/i);
    }
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsent to 5 of 5, finished \\d{4}-\\d\\d-\\d\\dT`, "m"));
    // Again: every reader has had it, nobody gets a second.
    const again = await newsletter(setup.env(), ["send", NAME]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("5 readers: 0 queued now, 5 already queued or sent before.");
    expect(setup.relay.mails).toHaveLength(5);
  });

  it("sends to the confirmed readers only: a pending reader gets nothing and is counted nowhere", async () => {
    // Two readers from before double opt-in, one who confirmed, two who never pressed the button in their mail.
    await addReaders(setup.dataDir, ["before0@example.org", "before1@example.org"]);
    await signUpWithConfirmation(setup.dataDir, {
      confirmed: ["confirmed@example.org"],
      pending: ["pending0@example.org", "pending1@example.org"],
    });
    const confirmed = ["before0@example.org", "before1@example.org", "confirmed@example.org"];
    const count = await subscribers(setup.dataDir, ["count"]);
    expect(count.stderr).toContain("3 confirmed, 2 pending");

    const dryRun = await newsletter(setup.env(), ["send", NAME, "--dry-run"]);
    expect(dryRun.stdout).toContain("Recipients: 3\n");
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("3 readers: 3 queued now.\n");
    expect(run.stderr).toContain(`Update ${NAME}: 3 of 3 sent, 0 skipped (unsubscribed), 0 failed, 0 uncertain.`);
    expect([...perRecipient(setup.relay.mails).entries()].sort()).toEqual(confirmed.map((email) => [email, 1]));
    expect(run.stderr).not.toContain("pending0");
    expect(
      outboxRows(setup.dataDir, NAME)
        .map((row) => [row.recipient, row.state])
        .sort(),
    ).toEqual(confirmed.map((email) => [email, "sent"]));
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsent to 3 of 3, finished `, "m"));
  });

  it("records a 5xx for one reader with the relay's words, and delivers to the others", async () => {
    await addReaders(setup.dataDir, readers(4));
    setup.relay.reject("reader2@example.org", 550, "5.1.1 <reader2@example.org>: Recipient address rejected");
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("3 of 4 sent, 0 skipped (unsubscribed), 1 failed, 0 uncertain.");
    expect(run.stderr).toContain(
      "  failed: reader2@example.org: 550 5.1.1 <reader2@example.org>: Recipient address rejected",
    );
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([
      "reader0@example.org",
      "reader1@example.org",
      "reader3@example.org",
    ]);
    const failed = outboxRows(setup.dataDir, NAME).filter((row) => row.state === "failed");
    expect(failed.map((row) => [row.recipient, row.attempts])).toEqual([["reader2@example.org", 1]]);
  });

  it("refuses before it starts on a refused login, with the relay's message, and queues nothing", async () => {
    await addReaders(setup.dataDir, readers(3));
    setup.relay.refuseAuth(true);
    const env = sendEnv(setup.dataDir, setup.updatesDir, setup.relay.url("owner", "wrong password"));
    const run = await newsletter(env, ["send", NAME]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "The relay refuses the sending before any mail (asked with MAIL FROM, nothing sent): 535 5.7.8 " +
        "Authentication credentials invalid",
    );
    expect(run.stderr).not.toContain("wrong password");
    expect(setup.relay.mails).toHaveLength(0);
    expect(outboxRows(setup.dataDir, NAME)).toEqual([]);
    // The password fixed: the same command goes on, and each reader gets the mail once.
    setup.relay.refuseAuth(false);
    expect((await newsletter(env, ["send", NAME])).code).toBe(0);
    expect([...perRecipient(setup.relay.mails).values()]).toEqual([1, 1, 1]);
  });

  it("refuses on a refused sender (a wrong MAIL_FROM) the same way", async () => {
    await addReaders(setup.dataDir, readers(2));
    setup.relay.refuseSender(true);
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "before any mail (asked with MAIL FROM, nothing sent): 553 5.7.1 Sender address rejected",
    );
    expect(outboxRows(setup.dataDir, NAME)).toEqual([]);
  });

  it("refuses a draft except as a test copy, which goes to one address, marked, and records nothing", async () => {
    await addReaders(setup.dataDir, readers(2));
    writeUpdate(setup.updatesDir, "2026-11-22-not-yet", { title: "Not yet", draft: true });
    const env = setup.env();
    const refused = await newsletter(env, ["send", "2026-11-22-not-yet"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("2026-11-22-not-yet is a draft (draft: true)");
    expect(setup.relay.mails).toHaveLength(0);

    const test = await newsletter(env, ["send", "2026-11-22-not-yet", "--test", "owner@example.net"]);
    expect(test.code).toBe(0);
    expect(test.stderr).toContain("Test copy of 2026-11-22-not-yet sent to owner@example.net");
    const [mail] = await setup.relay.waitForMails(1);
    expect(mail!.envelopeTo).toEqual(["owner@example.net"]);
    expect(mail!.parsed.subject).toBe("[Test] Not yet");
    expect(mail!.parsed.text).toMatch(/^This is a test copy/);
    expect(outboxRows(setup.dataDir)).toEqual([]);
    const status = await newsletter(env, ["status"]);
    expect(status.stdout).toContain("2026-11-22-not-yet\tdraft, not sent");
    expect(status.stdout).toContain(`${NAME}\tnot sent`);
  });

  it("--dry-run prints the recipients' number, the subject and the text part, and sends nothing", async () => {
    await addReaders(setup.dataDir, readers(3));
    const run = await newsletter(setup.env(), ["send", NAME, "--dry-run"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Recipients: 3\n");
    expect(run.stdout).toContain("Subject: First launch\n");
    expect(run.stdout).toContain("It is out: see <https://x.example/a>.");
    expect(run.stdout).toContain(`Read it on the site:\nhttps://example.com/updates/${NAME}\n`);
    expect(setup.relay.mails).toHaveLength(0);
    expect(outboxRows(setup.dataDir)).toEqual([]);
  });

  it("names the file and the field of a title with a line break, and sends nothing", async () => {
    await addReaders(setup.dataDir, readers(2));
    writeUpdate(setup.updatesDir, "2026-11-23-hostile", { title: "Hi\r\nBcc: victim@example.org" });
    const run = await newsletter(setup.env(), ["send", NAME]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/2026-11-23-hostile\.md: title/);
    expect(setup.relay.mails).toHaveLength(0);
  });

  it("refuses a second send while one is under way", async () => {
    await addReaders(setup.dataDir, readers(30));
    const env = setup.env({ MAIL_RATE_PER_SECOND: "2" });
    const first = startNewsletter(env, ["send", NAME]);
    try {
      await setup.relay.waitForMails(1);
      // The first send is held mid-way (its process stopped, alive, holding the lock and its rows' two-minute lease)
      // while two more commands start: however slow the machine, it is still under way when they look.
      first.kill("SIGSTOP");
      const second = await newsletter(env, ["send", NAME]);
      expect(second.code).toBe(3);
      expect(second.stderr).toContain(`An update is being sent already (${NAME}, process ${first.pid}`);
      const status = await newsletter(env, ["status"]);
      expect(status.stdout).toMatch(new RegExp(`^${NAME}\tsending, sent to \\d+ of 30`, "m"));
    } finally {
      first.kill("SIGCONT");
      expect(await exited(first)).toBe(0);
    }
    expect([...perRecipient(setup.relay.mails).values()].every((n) => n === 1)).toBe(true);
    expect(setup.relay.mails).toHaveLength(30);
  }, 40_000);
});

describe("a hostile title through a real relay", () => {
  it("stays one Subject line: no header of its own, no other recipient", async () => {
    const transport = createMailTransport({ kind: "smtp", url: setup.relay.url() }, FROM);
    try {
      const title = "Hello\r\nBcc: victim@example.org\r\nX-Injected: yes\n\nbody";
      const mail = composeUpdateMail(
        { name: "u", title, html: "<p>x</p>", text: "x", url: "https://example.com/updates/u" },
        { email: "reader@example.org", unsubscribeUrl: "https://example.com/unsubscribe?token=t" },
        { ownerName: "Alex", siteUrl: "https://example.com", from: FROM },
      );
      await transport.send(mail);
      const [received] = await setup.relay.waitForMails(1);
      expect(received!.envelopeTo).toEqual(["reader@example.org"]);
      expect(received!.parsed.subject).toBe("Hello Bcc: victim@example.org X-Injected: yes body");
      expect(received!.parsed.headers.has("x-injected")).toBe(false);
      expect(received!.parsed.headers.has("bcc")).toBe(false);
    } finally {
      transport.close();
    }
  });
});
