/**
 * Unsubscribing and sending meet: a reader who uses the one-click link of a received update (a POST to the
 * List-Unsubscribe URL, as mail providers send it) gets no later update, and one who leaves during a send gets
 * nothing from then on. The production server serves the unsubscribe page from the same DATA_DIR the command reads.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../../../support/production-server";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";
import {
  addReaders,
  exited,
  newsletter,
  outboxRows,
  perRecipient,
  startNewsletter,
  writeUpdate,
} from "../../../support/newsletter/cli";

const setup = sendSetupPerTest("newsletter-unsubscribe-");
let server: ServerProcess;

beforeEach(async () => {
  server = await startServer({ env: { DATA_DIR: setup.dataDir } });
});
afterEach(() => server.stop());

/** The mail's List-Unsubscribe URL, on the test server instead of the owner's address. */
function oneClickUrl(raw: string): string {
  const header = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, " ");
  const link = /^List-Unsubscribe: <([^>]+)>/im.exec(header)?.[1];
  if (!link) throw new Error("no List-Unsubscribe header");
  const url = new URL(link);
  return `${server.url}${url.pathname}${url.search}`;
}

const oneClick = (url: string) =>
  fetch(url, { method: "POST", body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }), redirect: "manual" });

describe("unsubscribing from a received update", () => {
  it("a one-click POST to the mail's List-Unsubscribe link: the next update skips that reader", async () => {
    const emails = Array.from({ length: 5 }, (_, n) => `reader${n}@example.org`);
    await addReaders(setup.dataDir, emails);
    writeUpdate(setup.updatesDir, "2026-11-20-first", { title: "First" });
    const env = setup.env();
    expect((await newsletter(env, ["send", "2026-11-20-first"])).code).toBe(0);
    const leaving = setup.relay.mails.find((mail) => mail.envelopeTo[0] === "reader3@example.org")!;
    const response = await oneClick(oneClickUrl(leaving.raw));
    expect(response.status).toBe(200);

    writeUpdate(setup.updatesDir, "2026-11-27-second", { title: "Second" });
    const second = await newsletter(env, ["send", "2026-11-27-second"]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("4 readers: 4 queued now.");
    const secondTo = setup.relay.mails
      .filter((mail) => mail.parsed.subject === "Second")
      .map((mail) => mail.envelopeTo[0]);
    expect(secondTo.sort()).toEqual(emails.filter((email) => email !== "reader3@example.org"));
  }, 60_000);

  it("a reader who leaves during a send gets nothing after that; the summary counts them skipped", async () => {
    const emails = Array.from({ length: 30 }, (_, n) => `reader${String(n).padStart(2, "0")}@example.org`);
    const rows = await addReaders(setup.dataDir, emails);
    writeUpdate(setup.updatesDir, "2026-11-20-first", { title: "First" });
    const last = rows.find((row) => row.email === "reader29@example.org")!;
    const sender = startNewsletter(setup.env({ MAIL_RATE_PER_SECOND: "5" }), ["send", "2026-11-20-first"]);
    await setup.relay.waitForMails(2, 20_000);
    const response = await oneClick(`${server.url}/unsubscribe?token=${last.unsubscribeToken}`);
    expect(response.status).toBe(200);
    expect(await exited(sender)).toBe(0);
    expect(sender.output()).toContain("29 of 30 sent, 1 skipped (unsubscribed), 0 failed, 0 uncertain.");
    expect(perRecipient(setup.relay.mails).has("reader29@example.org")).toBe(false);
    const skipped = outboxRows(setup.dataDir, "2026-11-20-first").filter((row) => row.state === "skipped");
    expect(skipped.map((row) => [row.recipient, row.lastError])).toEqual([
      ["reader29@example.org", "unsubscribed before the mail was sent"],
    ]);
  }, 60_000);
});
